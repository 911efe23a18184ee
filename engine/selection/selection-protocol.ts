/**
 * Messages between the selection pool and its threads (structured-clone plain data), and how
 * errors cross the thread boundary: an DomainError keeps its code, message, issues and retry hint,
 * so the API answers exactly as if the selection had run in its own thread.
 */
import { DomainError, type ErrorCode, type FieldIssue } from '../../platform/errors.ts';
import type { SelectionOutcome } from './execute.ts';
import type { LibrarySource } from './library.ts';
import type { NormalizedSelection } from './spec.ts';

export interface ExecuteMessage {
  t: 'execute';
  id: number;
  /** Stable key of the library within this pool; `source` is sent the first time a thread sees it. */
  key: string;
  source?: LibrarySource;
  selection: NormalizedSelection;
}

export type SerializedError =
  | { app: true; code: ErrorCode; message: string; issues: FieldIssue[]; retryAfterSeconds?: number }
  | { app: false; name: string; message: string; code?: string; stack?: string };

export type SelectionReply =
  { t: 'done'; id: number; outcome: SelectionOutcome } | { t: 'error'; id: number; error: SerializedError };

/** Plain data for an error thrown in a selection thread. */
export function serializeError(err: unknown): SerializedError {
  if (err instanceof DomainError)
    return {
      app: true,
      code: err.code,
      message: err.message,
      issues: err.issues,
      retryAfterSeconds: err.retryAfterSeconds,
    };
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    return {
      app: false,
      name: err.name,
      message: err.message,
      code: typeof code === 'string' ? code : undefined,
      stack: err.stack,
    };
  }
  return { app: false, name: 'Error', message: String(err) };
}

/** The error to throw in the calling thread: an DomainError as it was, anything else a plain Error (retryable). */
export function deserializeError(e: SerializedError): Error {
  if (e.app)
    return new DomainError(e.code, e.message, { issues: e.issues, retryAfterSeconds: e.retryAfterSeconds });
  const err = new Error(e.message);
  err.name = e.name;
  if (e.code) (err as Error & { code?: string }).code = e.code;
  if (e.stack)
    err.stack = `${e.name}: ${e.message}\n    (in a selection thread)\n${e.stack.split('\n').slice(1).join('\n')}`;
  return err;
}
