/** Request and response schemas of the legacy job routes (api/routes/legacy/jobs.ts). */
import { Type, type Static } from '@sinclair/typebox';
import { MAX_JOB_NEIGHBORS } from '../../services/jobs.ts';
import { BoolParam, INT32_MAX, SAMPLE_SMILES, SearchQualitySchema, SearchTypeSchema } from './params.ts';

/** Largest page a client may ask for. */
export const MAX_PAGE_SIZE = 100_000;

export const JobName = Type.String({ description: 'Job name returned by /submit_molsearch (job_<ULID>)' });

export const SubmitQuery = Type.Object({
  search_input: Type.String({ default: SAMPLE_SMILES, description: 'Query molecule (SMILES)' }),
  search_type: Type.Union([SearchTypeSchema], {
    default: 'espsim_shape',
    description:
      'morgan scans catalogs (or a synthon space); espsim_shape / espsim_electrostatic on 3D-ready databases (every shard aligned and scored; docs/search.md); synthongpt searches one synthon space (a synthon job, Morgan scorer)',
  }),
  search_quality: Type.Union([SearchQualitySchema], { default: 'fast' }),
  db_names: Type.Optional(
    Type.Array(Type.String(), { description: 'Databases to scan; see /available_databases' }),
  ),
  n_neighbors: Type.Integer({
    default: MAX_JOB_NEIGHBORS,
    maximum: INT32_MAX,
    description: `Neighbours wanted (at most ${MAX_JOB_NEIGHBORS})`,
  }),
  include_properties: BoolParam(
    false,
    'Recorded with the job; properties are always stored and paged on request',
  ),
});

export const JobViewSchema = Type.Object({
  job_name: Type.String(),
  status: Type.String(),
  kind: Type.String(),
  parameters: Type.Record(Type.String(), Type.Unknown()),
  created_at: Type.String(),
  updated_at: Type.String(),
  finished_at: Type.Union([Type.String(), Type.Null()]),
  rows: Type.Union([Type.Integer(), Type.Null()]),
  error: Type.Union([Type.String(), Type.Null()]),
  progress: Type.Object({
    shards_done: Type.Union([Type.Integer(), Type.Null()]),
    shards_total: Type.Union([Type.Integer(), Type.Null()]),
    rows_scored: Type.Optional(Type.Integer({ description: '3D jobs: rows aligned and scored so far' })),
    rows_rejected: Type.Optional(
      Type.Integer({ description: '3D jobs: rows skipped for want of a 3D model (see the rejects file)' }),
    ),
    timed_out: Type.Optional(
      Type.Boolean({ description: 'Synthon jobs: a slice stopped at its time or product limit' }),
    ),
    hit_cap_reached: Type.Optional(
      Type.Boolean({
        description:
          'Synthon substructure/superstructure jobs: more hits exist than the slices ranked (10 × the wanted count, at least 10,000 a slice); the rows are the most similar of those ranked',
      }),
    ),
    fraction: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: 1,
        description:
          'Synthon jobs: share done (moves within slices; shards_done counts whole slices); with synthon_scorer shape or esp the slices are the first half and the 3D reranking the second',
      }),
    ),
    stage: Type.Optional(
      Type.Literal('rerank_3d', {
        description:
          'Synthon jobs with a 3D scorer: the shortlist is being embedded and scored (shards_done / shards_total count its products)',
      }),
    ),
  }),
});

export const PageQuery = Type.Object({
  job_name: Type.String({ default: 'XXX', description: 'Job name' }),
  db_name: Type.Optional(
    Type.Array(Type.String(), {
      description: 'Accepted for compatibility (scalar or one-element list); the job knows its databases',
    }),
  ),
  page_size: Type.Integer({ default: 30, minimum: 1, maximum: MAX_PAGE_SIZE }),
  page_num: Type.Integer({
    default: 1,
    minimum: 0,
    maximum: INT32_MAX,
    description: 'Page number, 0-based (clients start at 0)',
  }),
  include_properties: BoolParam(
    false,
    'Add one list per property key (33, in the order of the property-range table)',
  ),
  include_synthons: BoolParam(
    false,
    'Add product_id, reaction_id and synthons ([{slot, synthon_id, smiles}] per row; [] and null for catalog rows)',
  ),
  sim_th: Type.Number({
    default: 0,
    minimum: 0,
    maximum: 1,
    description: 'Drop rows with similarity below it',
  }),
  d_min: Type.Number({
    default: 0,
    minimum: 0,
    maximum: 1,
    description: 'Distance window: keep rows with 1 - similarity >= d_min',
  }),
  d_max: Type.Number({
    default: 1,
    minimum: 0,
    maximum: 1,
    description: 'Distance window: keep rows with 1 - similarity <= d_max',
  }),
});

export const PagingBody = Type.Object(
  {
    prop_ranges: Type.Optional(
      Type.Record(
        Type.String(),
        Type.Object({ min: Type.Optional(Type.Number()), max: Type.Optional(Type.Number()) }),
        { description: 'property key → {min, max}; sets in_prop_range, never drops rows' },
      ),
    ),
    neighbor_ids: Type.Optional(Type.Array(Type.String(), { default: [] })),
  },
  { additionalProperties: true },
);
export type PagingBodyT = Static<typeof PagingBody>;

/**
 * Documents the page; the handler sends it as JSON text already serialised from the result's
 * columns (Fastify sends strings as they are), hence the static type string.
 */
export const PageSchema = Type.Unsafe<string>(
  Type.Record(
    Type.String(),
    Type.Array(
      Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null(), Type.Array(Type.Unknown())]),
    ),
    {
      description:
        'Column-oriented page: smiles, id, database, db_id, similarity, in_prop_range (3D jobs: + Shapesim, Espsim) (+ 33 property lists; + product_id, reaction_id, synthons with include_synthons); all lists of equal length',
    },
  ),
);
