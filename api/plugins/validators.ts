import { Ajv, type Options } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';

const COMMON: Options = { useDefaults: true, removeAdditional: false, allErrors: true, addUsedSchema: false };

/**
 * Two validators: query strings, path parameters and headers are text, so they are coerced to the
 * declared types (`?limit=10`, repeated keys as arrays); v2 JSON bodies are typed already, so they
 * are strict: `"10"`, `true` or `[5]` where a number belongs is a 422 naming the field, not a
 * number. Legacy bodies keep coercion (older clients, a compatibility promise).
 */
export function registerValidators(app: FastifyInstance): void {
  const coercing = new Ajv({ ...COMMON, coerceTypes: 'array' });
  const strict = new Ajv({ ...COMMON, coerceTypes: false });
  for (const ajv of [coercing, strict]) addFormats.default(ajv);
  app.setValidatorCompiler(({ schema, url, httpPart }) => {
    const ajv = httpPart === 'body' && url.startsWith('/api/v2') ? strict : coercing;
    return ajv.compile(schema);
  });
}
