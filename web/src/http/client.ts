import { getApiKey } from '../account/key-store.ts';

/**
 * The one way the pages talk to the service: same-origin fetches of the public HTTP API with the
 * key in the X-API-Key header. Errors of both generations (legacy FastAPI-shaped 422 bodies and
 * v2 {error: {...}} envelopes) become an ApiError whose message names the field and the reason.
 */
export type QueryValue = string | number | boolean | undefined | null | (string | number)[];

/** A failed call: `status` 0 means the service could not be reached. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly field?: string;
  constructor(status: number, code: string, message: string, field?: string) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.field = field;
  }
}

export interface CallOptions {
  method?: 'GET' | 'POST';
  query?: Record<string, QueryValue>;
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** Send no key (public routes such as /openapi.json). */
  anonymous?: boolean;
}

/** Repeated keys for lists, as the legacy endpoints expect (db_names=a&db_names=b). */
export function queryString(q: Record<string, QueryValue> = {}): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) {
    if (v === undefined || v === null || v === '') continue;
    if (Array.isArray(v)) for (const x of v) p.append(k, String(x));
    else p.append(k, String(v));
  }
  const s = p.toString();
  return s ? `?${s}` : '';
}

const fieldOf = (loc: unknown): string | undefined =>
  Array.isArray(loc)
    ? loc.filter((p, i) => !(i === 0 && ['query', 'body', 'header', 'path'].includes(String(p)))).join('.')
    : undefined;

/** Turns an error response into an ApiError with a message a person can act on. */
export async function errorOf(res: Response): Promise<ApiError> {
  let body: any = null;
  try {
    body = await res.json();
  } catch {
    /* not JSON */
  }
  const retry = res.headers.get('retry-after');
  if (body?.error?.message) {
    const d = body.error.details?.[0];
    return new ApiError(
      res.status,
      body.error.code ?? 'error',
      body.error.message,
      d?.path ?? fieldOf(d?.loc),
    );
  }
  if (Array.isArray(body?.detail) && body.detail.length) {
    const first = body.detail[0];
    const field = fieldOf(first.loc);
    const msg = body.detail.map((d: any) => `${fieldOf(d.loc) ?? 'request'}: ${d.msg}`).join('; ');
    return new ApiError(res.status, first.type ?? 'validation_error', msg, field);
  }
  const text = typeof body?.detail === 'string' ? body.detail : undefined;
  if (res.status === 401 || res.status === 403)
    return new ApiError(
      res.status,
      'unauthorized',
      `API key rejected: ${text ?? 'invalid key'}. Check it on the Account page.`,
    );
  if (res.status === 429)
    return new ApiError(
      429,
      'rate_limited',
      `${text ?? 'Daily request limit reached'}${retry ? ` (resets in ${Math.ceil(Number(retry) / 60)} min)` : ''}`,
    );
  return new ApiError(
    res.status,
    'http_error',
    text ??
      `The service answered ${res.status} ${res.statusText}${res.status >= 500 ? ' (a server fault; try again)' : ''}`,
  );
}

/** A raw call (streams, downloads); throws ApiError on a non-2xx answer. */
export async function callRaw(path: string, opts: CallOptions = {}): Promise<Response> {
  const headers: Record<string, string> = { accept: 'application/json', ...opts.headers };
  const key = getApiKey();
  if (key && !opts.anonymous) headers['X-API-Key'] = key;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(path + queryString(opts.query), {
      method: opts.method ?? 'GET',
      headers,
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
      signal: opts.signal,
      credentials: 'omit',
      cache: 'no-store',
    });
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new ApiError(0, 'unreachable', 'Cannot reach the service: is it running?');
  }
  if (!res.ok && res.status !== 304) throw await errorOf(res);
  return res;
}

/** A JSON call. */
export async function call<T>(path: string, opts: CallOptions = {}): Promise<T> {
  const res = await callRaw(path, opts);
  return (await res.json()) as T;
}

export const messageOf = (err: unknown): string =>
  err instanceof Error ? err.message : typeof err === 'string' ? err : 'Something went wrong';
