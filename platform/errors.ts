/**
 * Typed errors with stable codes. The API's single error handler maps `code` to an HTTP status and
 * to the error body of the generation being served (legacy FastAPI-shaped, or the v2 envelope).
 */

export const ERROR_STATUS = {
  validation_error: 422,
  invalid_smiles: 422,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  idempotency_conflict: 409,
  payload_too_large: 413,
  credit_limit_exceeded: 429,
  capability_unavailable: 422,
  overloaded: 503,
  unavailable: 503,
  internal: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** One offending input: where it is (e.g. ["query", "n_neighbors"] or ["body", "items", 3]) and why. */
export interface FieldIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

/** Base class of every error the service raises on purpose. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly issues: FieldIssue[];
  readonly retryAfterSeconds?: number;
  constructor(
    code: ErrorCode,
    message: string,
    opts: { issues?: FieldIssue[]; retryAfterSeconds?: number; cause?: unknown } = {},
  ) {
    super(message, { cause: opts.cause });
    this.name = 'AppError';
    this.code = code;
    this.issues = opts.issues ?? [];
    this.retryAfterSeconds = opts.retryAfterSeconds;
  }
  get status(): number {
    return ERROR_STATUS[this.code];
  }
  get retryable(): boolean {
    return this.status === 429 || this.status >= 500;
  }
}

/** Thrown when a request field fails validation; `loc` names the field. */
export function validationError(loc: (string | number)[], msg: string, type = 'value_error'): AppError {
  return new AppError('validation_error', `${loc.join('.')}: ${msg}`, { issues: [{ loc, msg, type }] });
}

/** Thrown when a SMILES or SMARTS input cannot be parsed by RDKit. */
export function invalidSmiles(loc: (string | number)[], input: string, what = 'SMILES'): AppError {
  const msg = `could not parse ${what} ${JSON.stringify(input.slice(0, 200))}`;
  return new AppError('invalid_smiles', `${loc.join('.')}: ${msg}`, {
    issues: [{ loc, msg, type: 'value_error.smiles' }],
  });
}

/** Thrown for an unknown, malformed or absent resource visible to the caller (another user's too). */
export function notFound(what: string): AppError {
  return new AppError('not_found', `${what} not found`);
}
