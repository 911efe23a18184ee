import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import { DomainError, invalidSmiles } from '../../../platform/errors.ts';
import { DESCRIPTOR_NAMES } from '../../../engine/chem/index.ts';
import { sampleIndices, type Library } from '../../../engine/selection/index.ts';
import {
  ENGINE_VERSION,
  MAX_SYNC_LIMIT,
  Open,
  WarningSchema,
  errorResponses,
  libraryOr422,
  parseQuery,
  round3,
  type V2Deps,
} from './common.ts';

const Limit = (def: number) =>
  Type.Integer({
    minimum: 1,
    maximum: MAX_SYNC_LIMIT,
    default: def,
    description: `Hits returned (at most ${MAX_SYNC_LIMIT})`,
  });
const SearchBody = Open({
  query_smiles: Type.String({ minLength: 1, maxLength: 1000 }),
  database_id: Type.String({ minLength: 1 }),
  limit: Limit(10),
  include_synthons: Type.Boolean({ default: false }),
  include_properties: Type.Boolean({ default: true }),
});
const CheeseBody = Open({
  query_smiles: Type.String({ minLength: 1, maxLength: 1000 }),
  database_id: Type.String({ minLength: 1 }),
  scorer: Type.Union([Type.Literal('shape'), Type.Literal('esp')], { description: 'shape or esp' }),
  limit: Limit(10),
  shortlist_multiplier: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
  include_synthons: Type.Boolean({ default: false }),
});
const Query = Type.Object(
  {
    format: Type.Union([Type.Literal('smarts'), Type.Literal('smiles')], { default: 'smarts' }),
    value: Type.String({ minLength: 1, maxLength: 1000 }),
  },
  { additionalProperties: false },
);
const SubstructureBody = Open({
  query: Type.Optional(Query),
  query_smiles: Type.Optional(
    Type.String({ minLength: 1, maxLength: 1000, description: 'Deprecated: a SMILES query; use query' }),
  ),
  database_id: Type.String({ minLength: 1 }),
  limit: Limit(50),
  timeout_seconds: Type.Number({ exclusiveMinimum: 0, maximum: 60, default: 10 }),
  include_synthons: Type.Boolean({ default: false }),
});
const SampleBody = Open({
  database_id: Type.String({ minLength: 1 }),
  count: Limit(10),
  seed: Type.Optional(Type.Integer({ minimum: 0, maximum: 2 ** 32 - 1 })),
  include_synthons: Type.Boolean({ default: false }),
  include_properties: Type.Boolean({ default: true }),
});
const Hit = Open({
  rank: Type.Integer(),
  smiles: Type.String(),
  product_id: Type.String(),
  price: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()]),
  reaction_id: Type.Null(),
});
const Envelope = Open({
  request_id: Type.String(),
  database_id: Type.String(),
  database_release: Type.String(),
  metric: Type.String(),
  results: Type.Array(Hit),
  counts: Open({ returned: Type.Integer() }),
  timing_ms: Open({ total: Type.Number() }),
  warnings: Type.Array(WarningSchema),
});

const properties = (lib: Library, row: number) =>
  Object.fromEntries(DESCRIPTOR_NAMES.map((n) => [n, lib.column(n)?.[row] ?? null]));
const predicted = (lib: Library, row: number) =>
  Object.fromEntries(
    lib.info.predicted_property_ids.map((n) => {
      const v = lib.column(n)?.[row];
      return [n, v === undefined || Number.isNaN(v) ? null : v];
    }),
  );
const synthonsOf = (include: boolean) => (include ? { synthons: [] as unknown[] } : {});

/** Synchronous v2 searches: Morgan similarity, cheese (capability check), substructure, sample. */
export function registerV2SearchRoutes(app: FastifyInstance, deps: V2Deps): void {
  app.post<{ Body: Static<typeof SearchBody> }>(
    '/api/v2/search',
    {
      schema: {
        tags: ['v2'],
        summary: 'Morgan (ECFP4) Tanimoto similarity search, at most 200 hits',
        body: SearchBody,
        response: { 200: Envelope, ...errorResponses },
      },
    },
    async (request) => {
      const t0 = performance.now();
      const b = request.body;
      const lib = await libraryOr422(deps.libraries, b.database_id);
      const q = await parseQuery(b.query_smiles);
      const t1 = performance.now();
      const knn = await lib.knn(q.fp, b.limit);
      const results = Array.from(knn.rows, (row, i) => ({
        rank: i + 1,
        smiles: lib.smiles(row),
        score: knn.scores[i],
        product_id: lib.productId(row),
        price: lib.price(row),
        reaction_id: null,
        metric: 'rdkit.ecfp4_tanimoto',
        ...(b.include_properties
          ? { properties: properties(lib, row), predicted_properties: predicted(lib, row) }
          : {}),
        ...synthonsOf(b.include_synthons),
      }));
      const total = performance.now() - t0;
      return {
        request_id: request.id,
        database_id: lib.info.database_id,
        database_release: lib.info.release,
        scorer: 'morgan',
        metric: 'rdkit.ecfp4_tanimoto',
        engine_version: ENGINE_VERSION,
        query_smiles: q.canonicalSmiles,
        results,
        counts: { returned: results.length, scanned: lib.size },
        timing_ms: { query: round3(t1 - t0), search: round3(total - (t1 - t0)), total: round3(total) },
        warnings: [],
      };
    },
  );

  app.post<{ Body: Static<typeof CheeseBody> }>(
    '/api/v2/search_cheese',
    {
      schema: {
        tags: ['v2'],
        summary:
          'Exact-product reranking by shape or electrostatic similarity (validated; scoring not yet available)',
        body: CheeseBody,
        response: { 200: Envelope, ...errorResponses },
      },
    },
    async (request) => {
      const b = request.body;
      await libraryOr422(deps.libraries, b.database_id);
      await parseQuery(b.query_smiles);
      throw new DomainError(
        'capability_unavailable',
        `scorer ${b.scorer} is not available yet: shape and electrostatic scoring are not part of this deployment; use POST /api/v2/search (Morgan/ECFP4)`,
      );
    },
  );

  const substructure = async (
    request: { id: string; body: Static<typeof SubstructureBody> },
    deprecated: boolean,
  ) => {
    const t0 = performance.now();
    const b = request.body;
    const lib = await libraryOr422(deps.libraries, b.database_id);
    const query =
      b.query ?? (b.query_smiles ? { format: 'smiles' as const, value: b.query_smiles } : undefined);
    if (!query)
      throw new DomainError('validation_error', '$.query: field required (or the deprecated query_smiles)', {
        issues: [{ loc: ['body', 'query'], msg: 'field required', type: 'value_error.missing' }],
      });
    const key = `${lib.info.database_id}@${lib.info.release}`;
    const r = await deps.substructure.scan(
      key,
      () => Array.from({ length: lib.size }, (_, i) => lib.smiles(i)),
      { format: query.format, query: query.value, limit: b.limit, timeoutMs: b.timeout_seconds * 1000 },
    );
    if ('invalidQuery' in r)
      throw invalidSmiles(
        b.query ? ['body', 'query', 'value'] : ['body', 'query_smiles'],
        query.value,
        query.format.toUpperCase(),
      );
    const results = r.hits.map((h, i) => ({
      rank: i + 1,
      smiles: lib.smiles(h.row),
      score: 1,
      product_id: lib.productId(h.row),
      price: lib.price(h.row),
      reaction_id: null,
      metric: 'substructure',
      matched_atom_indices: h.atoms,
      matched_bond_indices: h.bonds,
      ...synthonsOf(b.include_synthons),
    }));
    const warnings = r.timedOut
      ? [
          {
            code: 'timed_out',
            message: `stopped after ${b.timeout_seconds} s having scanned ${r.scanned} of ${lib.size} products; results are partial`,
          },
        ]
      : [];
    if (deprecated)
      warnings.push({
        code: 'deprecated',
        message: 'POST /api/v2/substructure is deprecated; use POST /api/v2/search_substructure',
      });
    const total = performance.now() - t0;
    return {
      request_id: request.id,
      database_id: lib.info.database_id,
      database_release: lib.info.release,
      engine_version: ENGINE_VERSION,
      metric: 'substructure',
      scorer: 'substructure',
      query,
      query_smiles: query.value,
      results,
      timed_out: r.timedOut,
      coverage_fraction: lib.size ? r.scanned / lib.size : 1,
      indexed_products: lib.size,
      available_products: lib.size,
      indexed_reactions: 0,
      available_reactions: 0,
      counts: {
        returned: results.length,
        native_candidates: r.scanned - r.prefiltered - r.invalid,
        exact_mismatches: r.scanned - r.prefiltered - r.invalid - results.length,
        prefiltered: r.prefiltered,
        invalid: r.invalid,
        duplicate_products: 0,
      },
      timing_ms: { total: round3(total) },
      warnings,
    };
  };
  const subSchema = (deprecated: boolean) => ({
    tags: ['v2'],
    deprecated,
    summary: deprecated
      ? 'Deprecated twin of /api/v2/search_substructure'
      : 'Substructure search (SMARTS or SMILES) with matched atom and bond indices',
    body: SubstructureBody,
    response: { 200: Envelope, ...errorResponses },
  });
  app.post<{ Body: Static<typeof SubstructureBody> }>(
    '/api/v2/search_substructure',
    { schema: subSchema(false) },
    (request) => substructure(request, false),
  );
  app.post<{ Body: Static<typeof SubstructureBody> }>(
    '/api/v2/substructure',
    { schema: subSchema(true) },
    (request) => substructure(request, true),
  );

  app.post<{ Body: Static<typeof SampleBody> }>(
    '/api/v2/sample',
    {
      schema: {
        tags: ['v2'],
        summary: 'Seeded, reproducible random sample of a catalog release',
        body: SampleBody,
        response: { 200: Envelope, ...errorResponses },
      },
    },
    async (request) => {
      const t0 = performance.now();
      const b = request.body;
      const lib = await libraryOr422(deps.libraries, b.database_id);
      const seed = b.seed ?? Math.floor(Math.random() * 2 ** 32);
      const rows = sampleIndices(lib.size, b.count, seed);
      const results = Array.from(rows, (row, i) => ({
        rank: i + 1,
        index: row,
        smiles: lib.smiles(row),
        score: null,
        product_id: lib.productId(row),
        price: lib.price(row),
        reaction_id: null,
        metric: 'sample',
        ...(b.include_properties
          ? { properties: properties(lib, row), predicted_properties: predicted(lib, row) }
          : {}),
        ...synthonsOf(b.include_synthons),
      }));
      return {
        request_id: request.id,
        database_id: lib.info.database_id,
        database_release: lib.info.release,
        metric: 'sample',
        scorer: 'sample',
        sampling_method: 'route_product_tuple',
        sampling_version: 1,
        seed,
        requested: b.count,
        returned: results.length,
        deduplicated: 0,
        results,
        counts: { returned: results.length },
        timing_ms: { total: round3(performance.now() - t0) },
        warnings:
          results.length < b.count
            ? [{ code: 'catalog_exhausted', message: `the catalog has ${lib.size} products` }]
            : [],
      };
    },
  );
}
