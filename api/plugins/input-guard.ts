import type { FastifyRequest } from 'fastify';
import { validationError } from '../../platform/errors.ts';

/** Nested values the guard walks at most (deeper JSON is left to the route's own validation). */
const MAX_DEPTH = 64;

/** The first string holding a NUL byte, as a path from `value` (undefined when there is none). */
function nulPath(value: unknown, path: (string | number)[], depth = 0): (string | number)[] | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path : undefined;
  if (depth > MAX_DEPTH || value === null || typeof value !== 'object') return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const p = nulPath(value[i], [...path, i], depth + 1);
      if (p) return p;
    }
    return undefined;
  }
  for (const [k, v] of Object.entries(value)) {
    if (k.includes('\u0000')) return [...path, k];
    const p = nulPath(v, [...path, k], depth + 1);
    if (p) return p;
  }
  return undefined;
}

/**
 * Refuses a NUL byte anywhere in the path parameters, the query string or a JSON body with a 422
 * naming the field. No identifier, SMILES, name or path of this service contains one, and the
 * metadata database cannot store one: let through, it turned lookups into 500s.
 */
export function rejectNulBytes(request: FastifyRequest): void {
  const parts: [string, unknown][] = [
    ['path', request.params],
    ['query', request.query],
    ['body', request.body],
  ];
  for (const [where, value] of parts) {
    const p = nulPath(value, [where]);
    if (p) throw validationError(p, 'must not contain a NUL byte', 'value_error.nul');
  }
}
