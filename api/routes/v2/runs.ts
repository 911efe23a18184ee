import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import { DomainError, validationError } from '../../../platform/errors.ts';
import { RUN_STATUSES, ITEM_STATUSES, type RunRow } from '../../../store/runs.ts';
import { checkRunDocument, presentRun, runLimitViolation } from '../../v2/runs-service.ts';
import { Open, accountOf, errorResponses, type V2Deps } from './common.ts';
import { ownRun, presentItem } from './run-present.ts';
import { registerRunEventRoutes } from './run-events.ts';

const RunSchema = Open({
  object: Type.Literal('run'),
  id: Type.String(),
  schema_version: Type.String(),
  kind: Type.String(),
  status: Type.String(),
  created_at: Type.String(),
  updated_at: Type.String(),
  expires_at: Type.String(),
  last_event_sequence: Type.Integer(),
  progress: Open({
    pending: Type.Integer(),
    running: Type.Integer(),
    succeeded: Type.Integer(),
    failed: Type.Integer(),
    cancelled: Type.Integer(),
    total: Type.Integer(),
  }),
  metadata: Type.Record(Type.String(), Type.String()),
  specification_hash: Type.String(),
  links: Open({ self: Type.String(), events: Type.String(), items: Type.String(), results: Type.String() }),
  warnings: Type.Array(Type.Any()),
});
const Page = (item: ReturnType<typeof Type.Any> | typeof RunSchema) =>
  Open({ data: Type.Array(item), next_cursor: Type.Union([Type.String(), Type.Null()]) });
const IdParams = Type.Object({ id: Type.String({ maxLength: 100 }) });
const ListQuery = Type.Object({
  cursor: Type.Optional(Type.String({ maxLength: 500 })),
  limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
  status_filter: Type.Optional(Type.Union(RUN_STATUSES.map((s) => Type.Literal(s)))),
});
const ItemsQuery = Type.Object({
  cursor: Type.Optional(Type.String({ maxLength: 500 })),
  limit: Type.Integer({ minimum: 1, maximum: 1000, default: 100 }),
  status_filter: Type.Optional(Type.Union(ITEM_STATUSES.map((s) => Type.Literal(s)))),
});
const ResultsQuery = Type.Object({
  cursor: Type.Optional(Type.String({ maxLength: 500 })),
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
  order: Type.Union([Type.Literal('completion'), Type.Literal('input')], { default: 'completion' }),
});
const RunDoc = Type.Unknown({
  description:
    'A run/1 document: {schema_version, kind: selection | selection_batch, selection?, selection_template?, items?, failure_policy, metadata}',
});

const etagOf = (run: RunRow) => `"${run.id}-${run.last_event_sequence}-${run.updated_at.getTime()}"`;

/** POST/GET /api/v2/runs and the run sub-resources. */
export function registerV2RunRoutes(app: FastifyInstance, deps: V2Deps): void {
  const base = deps.publicUrl ?? '';
  app.post(
    '/api/v2/runs',
    {
      schema: {
        tags: ['v2'],
        summary: 'Submit a run (Idempotency-Key required); 202 with the run',
        body: RunDoc,
        headers: Type.Object({ 'idempotency-key': Type.Optional(Type.String()) }),
        response: { 202: RunSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const key = request.headers['idempotency-key'];
      if (typeof key !== 'string' || !/^[\x21-\x7e]{1,255}$/.test(key)) {
        throw validationError(
          ['header', 'Idempotency-Key'],
          'the Idempotency-Key header is required (1 to 255 visible ASCII characters)',
          'value_error.missing',
        );
      }
      const { run, created } = await deps.runService.create(accountOf(request), key, request.body);
      request.log.info(
        { run: run.id, created, kind: run.kind, items: run.progress.total },
        created ? 'run created' : 'run returned for idempotency key',
      );
      reply.header('location', `${base}/api/v2/runs/${run.id}`);
      return reply.status(202).send(presentRun(run, base));
    },
  );

  app.post(
    '/api/v2/runs::estimate',
    {
      schema: {
        tags: ['v2'],
        summary: 'Whether a run document is admissible, and its work',
        body: RunDoc,
        response: { 200: Open({ admissible: Type.Boolean() }), ...errorResponses },
      },
    },
    async (request) => {
      const checked = await checkRunDocument(request.body, deps.libraries);
      const violation = runLimitViolation(checked);
      return {
        admissible: !violation,
        ...(violation ? { reason: violation } : {}),
        execution_tier: 'durable',
        specification_hash: checked.specificationHash,
        work: checked.work,
      };
    },
  );

  app.get<{ Querystring: Static<typeof ListQuery> }>(
    '/api/v2/runs',
    {
      schema: {
        tags: ['v2'],
        summary: "The caller's runs, newest first",
        querystring: ListQuery,
        response: { 200: Page(RunSchema), ...errorResponses },
      },
    },
    async (request) => {
      const page = await deps.runs.list(accountOf(request), {
        cursor: request.query.cursor,
        limit: request.query.limit,
        status: request.query.status_filter,
      });
      return { data: page.data.map((r) => presentRun(r, base)), next_cursor: page.next_cursor };
    },
  );

  app.get<{ Params: Static<typeof IdParams> }>(
    '/api/v2/runs/:id',
    {
      schema: {
        tags: ['v2'],
        summary: 'A run (ETag; If-None-Match answers 304)',
        params: IdParams,
        response: { 200: RunSchema, 304: Type.Null(), ...errorResponses },
      },
    },
    async (request, reply) => {
      const run = await ownRun(deps, request, request.params.id);
      const etag = etagOf(run);
      reply.header('etag', etag);
      if (request.headers['if-none-match'] === etag) return reply.status(304).send();
      return presentRun(run, base);
    },
  );

  // A param ends at '::' only when constrained by a regex (else find-my-way names it 'id::cancel').
  app.post<{ Params: Static<typeof IdParams> }>(
    '/api/v2/runs/:id(^[A-Za-z0-9_-]+)::cancel',
    {
      schema: {
        tags: ['v2'],
        summary: 'Cancel a run (a finished run is returned unchanged)',
        params: IdParams,
        response: { 202: RunSchema, 200: RunSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const run = await ownRun(deps, request, request.params.id);
      if (['completed', 'completed_with_errors', 'failed', 'cancelled'].includes(run.status))
        return reply.status(200).send(presentRun(run, base));
      await deps.runService.cancel(run);
      return reply.status(202).send(presentRun(run, base));
    },
  );

  app.get<{ Params: Static<typeof IdParams>; Querystring: Static<typeof ItemsQuery> }>(
    '/api/v2/runs/:id/items',
    {
      schema: {
        tags: ['v2'],
        summary: 'Items of a run in input order',
        params: IdParams,
        querystring: ItemsQuery,
        response: { 200: Page(Type.Any()), ...errorResponses },
      },
    },
    async (request) => {
      const run = await ownRun(deps, request, request.params.id);
      const page = await deps.runs.items(run.id, {
        cursor: request.query.cursor,
        limit: request.query.limit,
        status: request.query.status_filter,
      });
      return { data: page.data.map(presentItem), next_cursor: page.next_cursor };
    },
  );

  app.get<{ Params: Static<typeof IdParams>; Querystring: Static<typeof ResultsQuery> }>(
    '/api/v2/runs/:id/results',
    {
      schema: {
        tags: ['v2'],
        summary: 'Results of succeeded items, by completion or input order',
        params: IdParams,
        querystring: ResultsQuery,
        response: { 200: Page(Type.Any()), ...errorResponses },
      },
    },
    async (request) => {
      const run = await ownRun(deps, request, request.params.id);
      const page = await deps.runs.results(run.id, {
        cursor: request.query.cursor,
        limit: request.query.limit,
        order: request.query.order,
      });
      const data = await Promise.all(
        page.data.map(async (i) => {
          if (!i.result_key) throw new DomainError('internal', `item ${i.item_id} has no result`);
          const doc = JSON.parse(
            Buffer.from(await deps.objects.getBytes(i.result_key)).toString('utf8'),
          ) as Record<string, unknown>;
          return {
            item_id: i.item_id,
            input_index: i.input_index,
            completion_sequence: i.completed_seq,
            attempt_count: i.attempt_count,
            ...doc,
          };
        }),
      );
      return { data, next_cursor: page.next_cursor };
    },
  );

  registerRunEventRoutes(app, deps);
}
