import { Type, type TProperties } from '@sinclair/typebox';
import type { App } from '../../types.ts';
import { DEFAULT_SHORTLIST_MULTIPLIER, type V2SearchService } from '../../services/v2-search.ts';
import { MAX_SYNC_LIMIT } from '../../services/selections.ts';
import { Open, WarningSchema, errorResponses } from './common.ts';

const Limit = (def: number) =>
  Type.Integer({
    minimum: 1,
    maximum: MAX_SYNC_LIMIT,
    default: def,
    description: `Hits returned (at most ${MAX_SYNC_LIMIT})`,
  });
// Request bodies are closed, as sample and selections are: a key the endpoint does not know
// ("scorer" sent to /search, a misspelt "limt") is a 422 naming it. A trial sent "scorer":"shape"
// to /search and got Morgan hits without a word. The released SDK sends only the contract's keys.
const Closed = <T extends TProperties>(props: T) => Type.Object(props, { additionalProperties: false });
const SearchBody = Closed({
  query_smiles: Type.String({ minLength: 1, maxLength: 1000 }),
  database_id: Type.String({ minLength: 1 }),
  limit: Limit(10),
  include_synthons: Type.Boolean({ default: false }),
  include_properties: Type.Boolean({ default: true }),
});
const CheeseBody = Closed({
  query_smiles: Type.String({ minLength: 1, maxLength: 1000 }),
  database_id: Type.String({ minLength: 1 }),
  scorer: Type.Union([Type.Literal('shape'), Type.Literal('esp'), Type.Literal('morgan')], {
    description:
      'shape (Gaussian shape Tanimoto after 3D alignment), esp (espsim ESP Carbo at that pose) or morgan (ECFP4 Tanimoto); on synthon spaces shape and esp rerank the Morgan proposal of at most 100 products',
  }),
  limit: Limit(10),
  shortlist_multiplier: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 100,
      description: `Rows proposed = limit × shortlist_multiplier (default ${DEFAULT_SHORTLIST_MULTIPLIER}), each scored exactly`,
    }),
  ),
  include_synthons: Type.Boolean({ default: false }),
  smarts_prefilter_pattern_id: Type.Optional(
    Type.String({ maxLength: 100, description: 'A pattern id of GET /smarts_patterns (synthon spaces)' }),
  ),
  smarts_prefilter_pattern_label: Type.Optional(
    Type.String({ maxLength: 200, description: 'A pattern label of GET /smarts_patterns (synthon spaces)' }),
  ),
  smarts_prefilter_pattern_smarts: Type.Optional(
    Type.String({
      maxLength: 1000,
      description: 'A SMARTS products must (include) or must not (exclude) match',
    }),
  ),
  smarts_prefilter_mode: Type.Union([Type.Literal('include'), Type.Literal('exclude')], {
    default: 'include',
  }),
  // As /api/v2/search: the interface's reranking result entry lists `properties`.
  include_properties: Type.Boolean({
    default: true,
    description: 'Each catalog hit carries properties and predicted_properties, as /api/v2/search',
  }),
});
const Query = Type.Object(
  {
    format: Type.Union([Type.Literal('smarts'), Type.Literal('smiles')], { default: 'smarts' }),
    value: Type.String({ minLength: 1, maxLength: 1000 }),
  },
  { additionalProperties: false },
);
const SubstructureBody = Closed({
  query: Type.Optional(Query),
  query_smiles: Type.Optional(
    Type.String({ minLength: 1, maxLength: 1000, description: 'Deprecated: a SMILES query; use query' }),
  ),
  database_id: Type.String({ minLength: 1 }),
  limit: Limit(50),
  timeout_seconds: Type.Number({ exclusiveMinimum: 0, maximum: 60, default: 10 }),
  search_mode: Type.Union([Type.Literal('substructure'), Type.Literal('superstructure')], {
    default: 'substructure',
    description: 'superstructure (products contained in the query SMILES): synthon spaces only',
  }),
  include_synthons: Type.Boolean({ default: false }),
});
// Closed, as selections are: a misspelt key ("bogus", "coutn") is a 422 naming it, not ignored.
// The released SDK (deepmedchem 0.4.0b5) sends database_id, count, include_synthons and seed.
const SampleBody = Type.Object(
  {
    database_id: Type.String({ minLength: 1 }),
    count: Limit(10),
    seed: Type.Optional(Type.Integer({ minimum: 0, maximum: 2 ** 32 - 1 })),
    include_synthons: Type.Boolean({ default: false }),
    include_properties: Type.Boolean({ default: true }),
    sampling_method: Type.Optional(
      Type.Literal('route_product_tuple', {
        description: 'The only sampling method (echoed in the result); any other value is a 422',
      }),
    ),
  },
  { additionalProperties: false },
);
const Hit = Open({
  rank: Type.Integer(),
  smiles: Type.String(),
  product_id: Type.String(),
  price: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()]),
  reaction_id: Type.Union([Type.String(), Type.Null()], {
    description: 'the reaction of a synthon-space product',
  }),
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

/** The Morgan search result: Envelope with what was scanned and, over a fleet catalog, the coverage. */
const TimedOut = Type.Optional(
  Type.Boolean({
    description:
      'Synthon spaces: true when the search stopped at its time budget, so the results are the best found, not proven the best (a timed_out warning says the same)',
  }),
);
const SearchResult = Open({
  ...Envelope.properties,
  timed_out: TimedOut,
  counts: Open({
    returned: Type.Integer(),
    scanned: Type.Integer({ minimum: 0, description: 'Products searched' }),
    coverage: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: 1,
        description:
          'Catalogs held by the scan fleet: the share of the products whose shards answered within the search budget (below 1: a partial_coverage warning names the missing shards)',
      }),
    ),
  }),
});

/** The interface's reranking result (search_cheese): Envelope plus the reranking fields. */
const Count = Type.Integer({ minimum: 0 });
const RerankResult = Open({
  request_id: Type.String(),
  database_id: Type.String(),
  database_release: Type.String(),
  scorer: Type.String(),
  metric: Type.String({ description: 'cheese.shape, cheese.electrostatic or rdkit.ecfp4_tanimoto' }),
  engine_version: Type.String(),
  model_version: Type.Union([Type.String(), Type.Null()], {
    description:
      'The proposal model (3D descriptors and conformer recipe, or Morgan); null for scorer morgan on synthon spaces',
  }),
  query_smiles: Type.String(),
  timed_out: TimedOut,
  effective_shortlist: Type.Integer({ description: 'Rows actually proposed and scored exactly' }),
  shortlist_multiplier: Type.Integer(),
  results: Type.Array(
    Open({
      rank: Type.Integer(),
      smiles: Type.String(),
      product_id: Type.String(),
      score: Type.Number(),
      proposal_score: Type.Number(),
      price: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()]),
      reaction_id: Type.Union([Type.String(), Type.Null()]),
      metric: Type.String(),
    }),
  ),
  counts: Open({ proposed: Count, assembled: Count, returned: Count }),
  timing_ms: Open({
    query: Type.Number(),
    proposal: Type.Number(),
    assembly_and_scoring: Type.Number(),
    total: Type.Number(),
  }),
  warnings: Type.Array(WarningSchema),
});

/** Synchronous v2 searches: Morgan similarity, cheese reranking, substructure, sample. */
export function registerV2SearchRoutes(app: App, search: V2SearchService): void {
  app.post(
    '/api/v2/search',
    {
      schema: {
        tags: ['v2'],
        summary: 'Morgan (ECFP4) Tanimoto similarity search, at most 200 hits',
        body: SearchBody,
        response: { 200: SearchResult, ...errorResponses },
      },
    },
    (request) => search.search(request.body, request.id),
  );

  app.post(
    '/api/v2/search_cheese',
    {
      schema: {
        tags: ['v2'],
        summary:
          'Exact-product reranking of catalog candidates by shape, electrostatic or Morgan similarity (the reranking result: counts, effective_shortlist, timing_ms)',
        body: CheeseBody,
        response: { 200: RerankResult, ...errorResponses },
      },
    },
    (request) => search.cheese(request.body, request.id),
  );

  const subSchema = (deprecated: boolean) => ({
    tags: ['v2'],
    deprecated,
    summary: deprecated
      ? 'Deprecated twin of /api/v2/search_substructure'
      : 'Substructure search (SMARTS or SMILES) with matched atom and bond indices',
    body: SubstructureBody,
    response: { 200: Envelope, ...errorResponses },
  });
  for (const [path, deprecated] of [
    ['/api/v2/search_substructure', false],
    ['/api/v2/substructure', true],
  ] as const)
    app.post(path, { schema: subSchema(deprecated) }, (request, reply) => {
      // The deadline counts from arrival (body parsing and validation included), and a client
      // that goes away withdraws its scan instead of leaving it to use the threads.
      const gone = new AbortController();
      reply.raw.once('close', () => {
        if (!reply.raw.writableFinished) gone.abort(new Error('client closed the connection'));
      });
      const receivedAt = Date.now() - reply.elapsedTime;
      return search.substructure(request.body, request.id, deprecated, { receivedAt, signal: gone.signal });
    });

  app.post(
    '/api/v2/sample',
    {
      schema: {
        tags: ['v2'],
        summary: 'Seeded, reproducible random sample of a catalog release',
        body: SampleBody,
        response: { 200: Envelope, ...errorResponses },
      },
    },
    (request) => search.sample(request.body, request.id),
  );
}
