import type { FastifyReply } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import type { App } from '../../types.ts';
import { validationError } from '../../../platform/errors.ts';
import type { SearchService, SearchType } from '../../services/search-service.ts';
import type { JobService } from '../../services/jobs.ts';
import { THREE_D_TYPES, type ShapeSearchService } from '../../services/shape-search.ts';
import { databases3d } from './search.ts';
import type { SynthonJobService } from '../../services/synthon-jobs.ts';
import { MAX_JOB_NEIGHBORS } from '../../services/jobs.ts';
import { checkPropRanges } from '../../services/jobs-page.ts';
import {
  BoolParam,
  checkDatabases,
  INT32_MAX,
  SAMPLE_SMILES,
  SearchQualitySchema,
  SearchTypeSchema,
} from './params.ts';

/** Most databases one job may scan. */
export const MAX_JOB_DATABASES = 10;
/** Largest page a client may ask for. */
export const MAX_PAGE_SIZE = 100_000;

const JobName = Type.String({ description: 'Job name returned by /submit_molsearch (job_<ULID>)' });

const SubmitQuery = Type.Object({
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
  }),
});

const PageQuery = Type.Object({
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
const PageSchema = Type.Unsafe<string>(
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

/**
 * Checks the databases of a job and that the search type is one jobs serve: morgan, and the 3D
 * types on 3D-ready databases (a 422 saying when a database will be ready; without `db_names`
 * the largest 3D-ready one).
 */
export async function checkJobSearch(
  search: SearchService,
  dbNames: string[] | undefined,
  searchType: string,
  shape?: ShapeSearchService,
): Promise<string[]> {
  if ((THREE_D_TYPES as readonly string[]).includes(searchType) && shape) {
    const names = await databases3d(search, shape, dbNames, [searchType as SearchType]);
    return checkDatabases(search, names, [searchType as SearchType], MAX_JOB_DATABASES);
  }
  if (searchType !== 'morgan') {
    throw validationError(
      ['query', 'search_type'],
      `jobs serve morgan${shape ? ', espsim_shape and espsim_electrostatic' : ''} (got ${searchType})`,
      'value_error.unavailable',
    );
  }
  return checkDatabases(search, dbNames, [searchType as SearchType], MAX_JOB_DATABASES);
}

const SYNTHON_SIMILARITY_DEFAULTS = {
  include_metadata: false,
  include_synthons: false,
  synthon_scorer: 'morgan',
  search_mode: 'similarity',
  structure_match_mode: 'fuzzy',
  smarts_prefilter_pattern_id: '',
  smarts_prefilter_pattern_label: '',
  smarts_prefilter_pattern_smarts: '',
  smarts_prefilter_mode: 'include',
  synthon_search_backend: 'exact_sss',
};

/**
 * The synthon space a /submit_molsearch names (search_type=synthongpt, or morgan on a space), or
 * undefined for catalogs. A job searches one space alone: mixing it with others is a 422.
 */
function synthonTarget(
  search: SearchService,
  dbNames: string[] | undefined,
  searchType: string,
): { space?: string } | undefined {
  const names = (dbNames ?? [])
    .flatMap((n) => n.split(','))
    .map((n) => n.trim())
    .filter(Boolean);
  const spaces = new Set(
    search
      .databases()
      .filter((d) => d.kind === 'synthon')
      .map((d) => d.id),
  );
  const named = names.filter((n) => spaces.has(n));
  if (searchType !== 'synthongpt' && !named.length) return undefined;
  if (searchType !== 'synthongpt' && searchType !== 'morgan')
    throw validationError(
      ['query', 'search_type'],
      `synthon spaces are searched with morgan or synthongpt (got ${searchType})`,
    );
  // No database named: the default (largest) space.
  if (!names.length) return {};
  if (named.length !== 1 || names.length !== 1)
    throw validationError(
      ['query', 'db_names'],
      `a synthongpt job searches exactly one synthon space (${[...spaces].join(', ') || 'none installed'}), got ${JSON.stringify(names)}`,
    );
  return { space: named[0] };
}

/** Legacy job routes: submit, status, info, list, revoke and pages. */
export function registerJobRoutes(
  app: App,
  deps: {
    jobs: JobService;
    search: SearchService;
    shape?: ShapeSearchService;
    synthonJobs?: SynthonJobService;
  },
): void {
  const { jobs, search, shape } = deps;
  const tags = ['legacy jobs'];
  // A bare JSON string: Fastify sends string payloads as-is, so encode it and set the type.
  const bareString = (reply: FastifyReply, value: string) =>
    reply.type('application/json; charset=utf-8').send(JSON.stringify(value));
  app.get(
    '/submit_molsearch',
    {
      schema: {
        tags,
        summary: 'Submit a similarity job (up to 100,000 neighbours); answers the job name',
        querystring: SubmitQuery,
        response: { 200: Type.String() },
      },
    },
    async (request, reply) => {
      const q = request.query;
      const target = deps.synthonJobs && synthonTarget(search, q.db_names, q.search_type);
      if (target && deps.synthonJobs) {
        // A space is searched by a synthon job: Morgan similarity, n_neighbors as the hit count.
        const name = await deps.synthonJobs.submit(
          request.account.id,
          {
            ...SYNTHON_SIMILARITY_DEFAULTS,
            search_input: q.search_input,
            db_name: target.space,
            search_quality: q.search_quality,
            sample_size: q.n_neighbors,
            include_properties: q.include_properties,
          },
          { searchQuality: false, sampleSize: true },
        );
        return bareString(reply, name);
      }
      const dbNames = await checkJobSearch(search, q.db_names, q.search_type, shape);
      if (!q.search_input.trim()) throw validationError(['query', 'search_input'], 'empty SMILES');
      // An unembeddable query is a 422 now, not a failed job later (503 without a 3D worker).
      if ((THREE_D_TYPES as readonly string[]).includes(q.search_type))
        await shape!.checkQuery(q.search_input.trim());
      const name = await jobs.submit(request.account.id, {
        smiles: q.search_input.trim(),
        dbNames,
        k: q.n_neighbors,
        searchType: q.search_type,
        searchQuality: q.search_quality,
        includeProperties: q.include_properties,
      });
      return bareString(reply, name);
    },
  );

  const byName = Type.Object({ job_name: JobName });
  app.get(
    '/job_status',
    {
      schema: {
        tags,
        summary: 'Job status: PENDING, STARTED, SUCCESS, FAILURE or REVOKED',
        querystring: byName,
        response: { 200: Type.String() },
      },
    },
    async (request, reply) =>
      bareString(reply, await jobs.status(request.account.id, request.query.job_name)),
  );
  app.get(
    '/job_info',
    {
      schema: {
        tags,
        summary: 'Job parameters, status, progress, row count and failure reason',
        querystring: byName,
        response: { 200: JobViewSchema },
      },
    },
    (request) => jobs.info(request.account.id, request.query.job_name),
  );
  app.get(
    '/user_jobs',
    {
      schema: {
        tags,
        summary: "The caller's jobs, newest first",
        response: { 200: Type.Array(JobViewSchema) },
      },
    },
    (request) => jobs.list(request.account.id),
  );
  app.post(
    '/revoke_job',
    {
      schema: {
        tags,
        summary: 'Revoke a job: its activities stop; status REVOKED',
        querystring: byName,
        response: { 200: Type.Object({ job_name: Type.String(), status: Type.String() }) },
      },
    },
    async (request) => {
      const name = request.query.job_name;
      return { job_name: name, status: await jobs.revoke(request.account.id, name) };
    },
  );

  app.post(
    '/get_molsearch_page',
    {
      schema: {
        tags,
        summary: 'One page (0-based) of a job result, column-oriented; empty lists while the job runs',
        querystring: PageQuery,
        body: Type.Optional(PagingBody),
        response: { 200: PageSchema },
      },
    },
    async (request, reply) => {
      const q = request.query;
      const body = request.body ?? {};
      if (q.d_min > q.d_max)
        throw validationError(['query', 'd_min'], `d_min (${q.d_min}) is greater than d_max (${q.d_max})`);
      const page = await jobs.pageJson(request.account.id, q.job_name, {
        pageNum: q.page_num,
        pageSize: q.page_size,
        includeProperties: q.include_properties,
        includeSynthons: q.include_synthons,
        simTh: q.sim_th,
        dMin: q.d_min,
        dMax: q.d_max,
        propRanges: checkPropRanges(body.prop_ranges),
        neighborIds: body.neighbor_ids ?? [],
      });
      // Serialised from the result's columns (jobs-page.ts): the schema's union-typed lists make
      // the generic serialiser ~10x slower, and a page object costs an allocation per cell.
      return reply.type('application/json; charset=utf-8').send(page);
    },
  );
}
