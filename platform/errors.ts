/**
 * The service's one error vocabulary: domain errors with stable codes, thrown by the engine, the
 * store, services and activities alike. Nothing here knows HTTP: the API's error handler
 * (`api/plugins/errors.ts`) is the one place that maps a code to a status and to the error body of
 * the generation being served; activities map codes to Temporal failures.
 */

/** Every stable code, with when it is used. */
export const ERROR_CODES = [
  /** A request field or document is invalid; `issues` names each field. */
  'validation_error',
  /** A SMILES or SMARTS input cannot be parsed by RDKit. */
  'invalid_smiles',
  /** No, an unknown, an expired or a revoked API key. */
  'unauthorized',
  'forbidden',
  /** An unknown, malformed or absent resource visible to the caller (another user's too). */
  'not_found',
  /** The path exists, but not under the request's method (HTTP 405, with `Allow`). */
  'method_not_allowed',
  /** The resource is in a state that forbids the operation (e.g. paging a failed job). */
  'conflict',
  /** An idempotency key reused with a different document. */
  'idempotency_conflict',
  /** Valid but more work than this path accepts (a bigger limit belongs to a run or job). */
  'payload_too_large',
  /** The account's daily budget is spent; `retryAfterSeconds` says until when. */
  'credit_limit_exceeded',
  /** A valid request for a capability this deployment does not have (yet). */
  'capability_unavailable',
  /** Too much work is queued right now; retry shortly. */
  'overloaded',
  /** A part of the service (Temporal, a pool, the models) cannot serve now; retry later. */
  'unavailable',
  /** A bug or an unexpected fault; details are logged, never shown. */
  'internal',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** Codes a client may retry unchanged (the same request can succeed later). */
export const RETRYABLE_CODES: readonly ErrorCode[] = [
  'credit_limit_exceeded',
  'overloaded',
  'unavailable',
  'internal',
];

/** One offending input: where it is (e.g. ["query", "n_neighbors"] or ["body", "items", 3]) and why. */
export interface FieldIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

/** Base class of every error the service raises on purpose; `code` is stable, `message` is for people. */
export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly issues: FieldIssue[];
  readonly retryAfterSeconds?: number;
  constructor(
    code: ErrorCode,
    message: string,
    opts: { issues?: FieldIssue[]; retryAfterSeconds?: number; cause?: unknown } = {},
  ) {
    super(message, { cause: opts.cause });
    this.name = 'DomainError';
    this.code = code;
    this.issues = opts.issues ?? [];
    this.retryAfterSeconds = opts.retryAfterSeconds;
  }
  /** A database still being built (value_error.not_ready) is worth retrying later, unchanged. */
  get retryable(): boolean {
    return RETRYABLE_CODES.includes(this.code) || this.issues.some((i) => i.type === 'value_error.not_ready');
  }
}

/** `["body","items",3,"id"]` → `$.items[3].id`: the JSON path of an offending field, its origin dropped. */
export function jsonPath(loc: readonly (string | number)[]): string {
  const rest = loc[0] === 'body' || loc[0] === 'query' || loc[0] === 'params' ? loc.slice(1) : loc;
  return '$' + rest.map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`)).join('');
}

/** Thrown when a request field fails validation; `loc` names the field. */
export function validationError(loc: (string | number)[], msg: string, type = 'value_error'): DomainError {
  return new DomainError('validation_error', `${loc.join('.')}: ${msg}`, { issues: [{ loc, msg, type }] });
}

/** Thrown when a SMILES or SMARTS input cannot be parsed by RDKit. */
export function invalidSmiles(loc: (string | number)[], input: string, what = 'SMILES'): DomainError {
  const msg = `could not parse ${what} ${JSON.stringify(input.slice(0, 200))}`;
  return new DomainError('invalid_smiles', `${loc.join('.')}: ${msg}`, {
    issues: [{ loc, msg, type: 'value_error.smiles' }],
  });
}

/** Thrown for an unknown, malformed or absent resource visible to the caller (another user's too). */
export function notFound(what: string): DomainError {
  return new DomainError('not_found', `${what} not found`);
}
