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
}

/**
 * The official v2 client sends unset optional parameters as empty values (`status_filter=`); in
 * v2 an empty query value means the parameter is absent (its default applies).
 */
function dropEmptyV2Params(request: FastifyRequest): void {
  const q = request.query as Record<string, unknown> | undefined;
  if (!q || typeof q !== 'object') return;
  for (const [k, v] of Object.entries(q)) if (v === '') delete q[k];
}
