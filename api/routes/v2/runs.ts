import { Type } from '@sinclair/typebox';
import type { App } from '../../types.ts';
import { documentedOnly } from '../../types.ts';
import { ITEM_STATUSES, RUN_STATUSES, type RunsService } from '../../services/runs.ts';
import { RunDocumentSchema } from '../../schemas/documents.ts';
import { Open, errorResponses } from './common.ts';
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

/** POST/GET /api/v2/runs and the run sub-resources. */
export function registerV2RunRoutes(app: App, runs: RunsService, opts: { eventPollMs?: number } = {}): void {
  app.post(
    '/api/v2/runs',
    {
      // The run document is documented by its schema and checked by the service (field-precise issues).
      validatorCompiler: documentedOnly,
      schema: {
        tags: ['v2'],
        summary: 'Submit a run (Idempotency-Key required); 202 with the run',
        body: RunDocumentSchema,
        headers: Type.Object({ 'idempotency-key': Type.Optional(Type.String()) }),
        response: { 202: RunSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const r = await runs.create(request.account.id, request.headers['idempotency-key'], request.body);
      request.log.info(
        { run: r.run.id, created: r.created, kind: r.run.kind, items: r.run.progress.total },
        r.created ? 'run created' : 'run returned for idempotency key',
      );
      return reply.header('location', r.location).status(202).send(r.run);
    },
  );

  app.post(
    '/api/v2/runs::estimate',
    {
      validatorCompiler: documentedOnly,
      schema: {
        tags: ['v2'],
        summary: 'Whether a run document is admissible, and its work',
        body: RunDocumentSchema,
        response: { 200: Open({ admissible: Type.Boolean() }), ...errorResponses },
      },
    },
    (request) => runs.estimate(request.body),
  );

  app.get(
    '/api/v2/runs',
    {
      schema: {
        tags: ['v2'],
        summary: "The caller's runs, newest first",
        querystring: ListQuery,
        response: { 200: Page(RunSchema), ...errorResponses },
      },
    },
    (request) =>
      runs.list(request.account.id, {
        cursor: request.query.cursor,
        limit: request.query.limit,
        status: request.query.status_filter,
      }),
  );

  app.get(
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
      const { run, etag } = await runs.get(request.account.id, request.params.id);
      reply.header('etag', etag);
      if (request.headers['if-none-match'] === etag) return reply.status(304).send(null);
      return run;
    },
  );

  // A param ends at '::' only when constrained by a regex (else find-my-way names it 'id::cancel').
  app.post(
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
      const { run, accepted } = await runs.cancel(request.account.id, request.params.id);
      return reply.status(accepted ? 202 : 200).send(run);
    },
  );

  app.get(
    '/api/v2/runs/:id/items',
    {
      schema: {
        tags: ['v2'],
        summary: "Items of a run in input order (a succeeded item's result holds its hits)",
        params: IdParams,
        querystring: ItemsQuery,
        response: { 200: Page(Type.Any()), ...errorResponses },
      },
    },
    (request) =>
      runs.items(request.account.id, request.params.id, {
        cursor: request.query.cursor,
        limit: request.query.limit,
        status: request.query.status_filter,
      }),
  );

  app.get(
    '/api/v2/runs/:id/results',
    {
      schema: {
        tags: ['v2'],
        summary:
          "Finished items (a failed one with its error, a succeeded one's result with its hits), by completion or input order",
        params: IdParams,
        querystring: ResultsQuery,
        response: { 200: Page(Type.Any()), ...errorResponses },
      },
    },
    (request) => runs.results(request.account.id, request.params.id, request.query),
  );

  registerRunEventRoutes(app, runs, opts);
}
