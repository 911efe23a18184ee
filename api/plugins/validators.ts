import { Ajv, type Options } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import { validationError } from '../../platform/errors.ts';

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
  refuseNonDecimalIntegers(app);
}

/** A whole number as a query string writes it: digits, an optional sign. */
const DECIMAL = /^[+-]?\d+$/;

/**
 * Ajv coerces query text with JavaScript's Number(): `n_neighbors=1e3` read as 1000 and `0x10` as
 * 16 (user trial), where the interface's FastAPI answers 422. Each route's integer query
 * parameters are found once from its schema, and their text checked before validation.
 */
function refuseNonDecimalIntegers(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const props = (route.schema?.querystring as { properties?: Record<string, unknown> } | undefined)
      ?.properties;
    if (!props) return;
    const ints = Object.entries(props)
      .filter(([, v]) => isInteger(v))
      .map(([k]) => k);
    if (!ints.length) return;
    const check = async (req: { query: unknown }) => {
      const q = req.query as Record<string, unknown>;
      for (const k of ints) {
        const v = q?.[k];
        for (const text of Array.isArray(v) ? v : [v])
          if (typeof text === 'string' && !DECIMAL.test(text.trim()))
            throw validationError(['query', k], 'value is not a valid integer', 'type_error.integer');
      }
    };
    const pre = route.preValidation;
    route.preValidation = pre ? [...(Array.isArray(pre) ? pre : [pre]), check] : [check];
  });
}

/** An integer parameter, or a list of them; a union that also takes text is left to Ajv. */
function isInteger(schema: unknown): boolean {
  const s = schema as { type?: unknown; items?: unknown };
  if (s.type === 'integer') return true;
  return s.type === 'array' && isInteger(s.items ?? {});
}
