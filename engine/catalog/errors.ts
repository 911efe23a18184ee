/** Errors of the catalog format. */

export const CATALOG_ERROR_CODES = [
  'catalog_not_found',
  'catalog_format',
  'catalog_corrupt',
  'catalog_build',
] as const;
export type CatalogErrorCode = (typeof CATALOG_ERROR_CODES)[number];

/**
 * Thrown when a catalog directory has no manifest (`catalog_not_found`), declares another format
 * or fingerprint (`catalog_format`), has a shard that does not parse or is misaligned
 * (`catalog_corrupt`), or when a build cannot proceed (`catalog_build`, e.g. a missing column).
 */
export class CatalogError extends Error {
  readonly code: CatalogErrorCode;
  constructor(code: CatalogErrorCode, message: string, opts: { cause?: unknown } = {}) {
    super(message, { cause: opts.cause });
    this.name = 'CatalogError';
    this.code = code;
  }
}
