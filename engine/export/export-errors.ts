/** Errors of the export writers. */

export const EXPORT_ERROR_CODES = ['xlsx_too_many_rows', 'xlsx_too_many_columns', 'xlsx_too_large'] as const;
export type ExportErrorCode = (typeof EXPORT_ERROR_CODES)[number];

/**
 * Thrown (as the export stream's error) when the data does not fit the format: more rows or
 * columns than an Excel sheet holds (`xlsx_too_many_rows`, `xlsx_too_many_columns`), or an
 * archive past 4 GiB (`xlsx_too_large`). Never retryable: the same input fails the same way.
 */
export class ExportLimitError extends Error {
  readonly code: ExportErrorCode;
  constructor(code: ExportErrorCode, message: string) {
    super(message);
    this.name = 'ExportLimitError';
    this.code = code;
  }
}
