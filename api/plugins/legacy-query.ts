import type { FastifyRequest } from 'fastify';

/**
 * Old clients send booleans as True/False, `search_quality=very accurate`, and POSTs without a body. Normalising them
 * before schema validation lets the schemas (and so the OpenAPI document) declare real types.
 */
export function normalizeLegacyQuery(request: FastifyRequest): void {
  if (request.url.startsWith('/api/v2')) return dropEmptyV2Params(request);
  // The paging and download POSTs take an optional body; a client that posts none means `{}`.
  if (request.method === 'POST' && request.body === undefined) request.body = {};
  const q = request.query as Record<string, unknown> | undefined;
  if (!q || typeof q !== 'object') return;
  for (const [k, v] of Object.entries(q)) {
    if (v === 'True' || v === 'TRUE') q[k] = 'true';
    else if (v === 'False' || v === 'FALSE') q[k] = 'false';
    else if (k === 'search_quality' && typeof v === 'string') q[k] = v.trim().replace(/\s+/g, '_');
  }
  if (q.search_type !== undefined) q.search_type = unalias(request, q.search_type);
}

/**
 * Search types older clients still send (client-contract.md), answered by the nearest type served:
 * `usr_shape` (USR, an alignment-free shape score) by `espsim_shape`, the aligned shape Tanimoto,
 * and `active_pairs` (a 2D pair-fingerprint similarity) by `morgan`. Such clients write an empty
 * output on a 422, so the search is answered and /molsearch says so in `remarks`.
 */
const SEARCH_TYPE_ALIASES: Readonly<Record<string, string>> = {
  usr_shape: 'espsim_shape',
  active_pairs: 'morgan',
};
const notes = new WeakMap<FastifyRequest, string>();

function unalias(request: FastifyRequest, v: unknown): unknown {
  const one = (t: unknown): unknown => {
    const to = typeof t === 'string' ? SEARCH_TYPE_ALIASES[t] : undefined;
    if (!to) return t;
    const note = `search_type ${t as string} is answered by ${to}.`;
    const before = notes.get(request);
    if (!before?.includes(note)) notes.set(request, before ? `${before} ${note}` : note);
    return to;
  };
  return Array.isArray(v) ? v.map(one) : one(v);
}

/** What unaliasing changed in this request's search_type, as a remark (undefined: nothing). */
export const searchTypeNote = (request: FastifyRequest): string | undefined => notes.get(request);

/**
 * The official v2 client sends unset optional parameters as empty values (`status_filter=`); in
 * v2 an empty query value means the parameter is absent (its default applies).
 */
function dropEmptyV2Params(request: FastifyRequest): void {
  const q = request.query as Record<string, unknown> | undefined;
  if (!q || typeof q !== 'object') return;
  for (const [k, v] of Object.entries(q)) if (v === '') delete q[k];
}
