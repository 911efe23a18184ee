/** Errors of the analysis operations (similarity, embeddings, clustering, maps, histograms). */
import { validationError } from '../../platform/errors.ts';

export const ANALYSIS_ERROR_CODES = [
  'empty_input',
  'dimension_mismatch',
  'too_large',
  'invalid_parameter',
  'unknown_metric',
  'invalid_embedding',
  'invalid_model',
] as const;
export type AnalysisErrorCode = (typeof ANALYSIS_ERROR_CODES)[number];

/**
 * Thrown for input an analysis cannot run on: no molecules or rows (`empty_input`), vectors or
 * fingerprints of different lengths (`dimension_mismatch`), more than a stated limit
 * (`too_large`), a parameter outside its range (`invalid_parameter`), a metric, search type or
 * method that is not offered (`unknown_metric`), a vector that is not a usable embedding
 * (`invalid_embedding`), a stored clustering that does not parse (`invalid_model`). `field` names
 * the caller's input the error is about (e.g. `search_input`, `threshold`), so the API can answer
 * a 422 whose `loc` points at it. Never retryable: the same input fails the same way.
 */
export class AnalysisError extends Error {
  readonly code: AnalysisErrorCode;
  readonly field: string;
  constructor(code: AnalysisErrorCode, field: string, message: string) {
    super(message);
    this.name = 'AnalysisError';
    this.code = code;
    this.field = field;
  }
}

/** Throws `too_large` when `count` exceeds `max`. */
export function checkLimit(field: string, count: number, max: number, what: string): void {
  if (count > max) throw new AnalysisError('too_large', field, `at most ${max} ${what}, got ${count}`);
}

/** Throws `invalid_parameter` unless `value` is an integer in [min, max]. */
export function checkInteger(field: string, value: number, min: number, max: number): void {
  if (!Number.isInteger(value) || value < min || value > max)
    throw new AnalysisError(
      'invalid_parameter',
      field,
      `must be an integer from ${min} to ${max}, got ${value}`,
    );
}

/** Throws `invalid_parameter` unless `value` is a finite number in [min, max]. */
export function checkNumber(field: string, value: number, min: number, max: number): void {
  if (!Number.isFinite(value) || value < min || value > max)
    throw new AnalysisError(
      'invalid_parameter',
      field,
      `must be a number from ${min} to ${max}, got ${value}`,
    );
}

/**
 * The DomainError an AnalysisError becomes where it leaves the engine (the analysis threads): a
 * validation error on `["query", field]` with type `value_error.<code>`, which the API answers as
 * a FastAPI-shaped 422 and which crosses the thread boundary intact. Other errors pass unchanged.
 */
export function analysisToDomain(err: unknown): unknown {
  if (!(err instanceof AnalysisError)) return err;
  return validationError(['query', err.field], err.message, `value_error.${err.code}`);
}
