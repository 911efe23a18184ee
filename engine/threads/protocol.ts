/**
 * Messages between a thread pool and its threads (structured-clone plain data), and how errors
 * cross the thread boundary: a DomainError keeps its code, message, issues and retry hint, so a
 * caller sees exactly what the same call in its own thread would have thrown; any other error
 * keeps its name, message, `code` property and stack (marked as coming from a thread).
 */
import { DomainError, type ErrorCode, type FieldIssue } from '../../platform/errors.ts';

/** Pool → thread: one request; `id` is unique within the pool. */
export interface RequestEnvelope<Req = unknown> {
  id: number;
  body: Req;
  /** A probe answered by the thread runtime itself, not the service (see memory.ts). */
  probe?: 'memory';
}

/** Thread → pool: the thread's setup finished (with what it reports) or failed; or a reply. */
export type ThreadEnvelope<Res = unknown> =
  | { t: 'ready'; info: unknown }
  | { t: 'failed'; error: SerializedError }
  | { t: 'reply'; id: number; ok: true; value: Res }
  | { t: 'reply'; id: number; ok: false; error: SerializedError; retire?: boolean };

export type SerializedError =
  | { domain: true; code: ErrorCode; message: string; issues: FieldIssue[]; retryAfterSeconds?: number }
  | { domain: false; name: string; message: string; code?: string; stack?: string };

/** Plain data for an error thrown in a thread. */
export function serializeError(err: unknown): SerializedError {
  if (err instanceof DomainError)
    return {
      domain: true,
      code: err.code,
      message: err.message,
      issues: err.issues,
      retryAfterSeconds: err.retryAfterSeconds,
    };
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    return {
      domain: false,
      name: err.name,
      message: err.message,
      code: typeof code === 'string' ? code : undefined,
      stack: err.stack,
    };
  }
  return { domain: false, name: 'Error', message: String(err) };
}

/** The error to throw in the calling thread: a DomainError as it was, anything else a plain Error. */
export function deserializeError(e: SerializedError, where = 'a worker thread'): Error {
  if (e.domain)
    return new DomainError(e.code, e.message, { issues: e.issues, retryAfterSeconds: e.retryAfterSeconds });
  const err = new Error(e.message);
  err.name = e.name;
  if (e.code) (err as Error & { code?: string }).code = e.code;
  if (e.stack)
    err.stack = `${e.name}: ${e.message}\n    (in ${where})\n${e.stack.split('\n').slice(1).join('\n')}`;
  return err;
}
