import type { FastifyReply } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { App } from '../../types.ts';
import { validationError } from '../../../platform/errors.ts';
import type { SearchService } from '../../services/search-service.ts';
import type { JobService } from '../../services/jobs.ts';
import { THREE_D_TYPES, type ShapeSearchService } from '../../services/shape-search.ts';
import type { SynthonJobService } from '../../services/synthon-jobs.ts';
import { checkPropRanges } from '../../services/jobs-page.ts';
import { JobName, JobViewSchema, PageQuery, PageSchema, PagingBody, SubmitQuery } from './jobs-schemas.ts';
import { checkJobSearch, SYNTHON_SIMILARITY_DEFAULTS, synthonTarget } from './jobs-target.ts';
import { queryFirst } from './params.ts';
import { parseQuery } from '../../services/v2-search-common.ts';

export { JobViewSchema, MAX_PAGE_SIZE, PagingBody, type PagingBodyT } from './jobs-schemas.ts';
export { checkJobSearch, MAX_JOB_DATABASES } from './jobs-target.ts';

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
      // The query first: a bad SMILES is named even when the database is still being built.
      if (!q.search_input.trim()) throw validationError(['query', 'search_input'], 'empty SMILES');
      const target = await queryFirst(
        () => deps.synthonJobs && synthonTarget(search, q.db_names, q.search_type),
        () => parseQuery(q.search_input, ['query', 'search_input']),
      );
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
          { searchQuality: false, sampleSize: true, dbField: 'db_names' },
        );
        return bareString(reply, name);
      }
      const dbNames = await queryFirst(
        () => checkJobSearch(search, q.db_names, q.search_type, shape),
        () => parseQuery(q.search_input, ['query', 'search_input']),
      );
      // An unembeddable query is a 422 now, not a failed job later (503 without a 3D worker).
      // Its conformers travel to the job, which then does not embed the query again.
      const query3d = (THREE_D_TYPES as readonly string[]).includes(q.search_type)
        ? await shape!.checkQuery(q.search_input.trim())
        : undefined;
      const name = await jobs.submit(request.account.id, {
        smiles: q.search_input.trim(),
        dbNames,
        k: q.n_neighbors,
        searchType: q.search_type,
        searchQuality: q.search_quality,
        includeProperties: q.include_properties,
        query3d,
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
