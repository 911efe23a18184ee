import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import { validationError } from '../../../platform/errors.ts';
import { TERMINAL_RUN_STATUSES } from '../../../store/runs.ts';
import { Open, errorResponses, type V2Deps } from './common.ts';
import { ownRun, presentEvent } from './run-present.ts';

const IdParams = Type.Object({ id: Type.String({ maxLength: 100 }) });
const EventsQuery = Type.Object({
  after: Type.Integer({
    minimum: 0,
    default: 0,
    description: 'Last sequence seen; events with a greater sequence are returned',
  }),
  limit: Type.Integer({ minimum: 1, maximum: 1000, default: 200 }),
  // Generic page walkers follow next_cursor; it is the last sequence served, so it means `after`.
  cursor: Type.Optional(
    Type.String({
      pattern: '^[0-9]{1,15}$',
      description: 'next_cursor of the previous page (same meaning as after)',
    }),
  ),
});
const StreamQuery = Type.Object({ after: Type.Optional(Type.Integer({ minimum: 0 })) });

/** Events as pages (`after`) and as a server-sent-events stream resuming from Last-Event-ID. */
export function registerRunEventRoutes(app: FastifyInstance, deps: V2Deps): void {
  // Open streams end when the app closes, so a restart never waits on them; clients reconnect
  // with Last-Event-ID and resume.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.get<{ Params: Static<typeof IdParams>; Querystring: Static<typeof EventsQuery> }>(
    '/api/v2/runs/:id/events',
    {
      schema: {
        tags: ['v2'],
        summary: 'Events of a run after a sequence, in order',
        params: IdParams,
        querystring: EventsQuery,
        response: {
          200: Open({
            data: Type.Array(Type.Any()),
            next_cursor: Type.Union([Type.String(), Type.Null()]),
            last_event_sequence: Type.Integer(),
            status: Type.String(),
          }),
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const run = await ownRun(deps, request, request.params.id);
      const after = Math.max(
        request.query.after,
        request.query.cursor === undefined ? 0 : Number(request.query.cursor),
      );
      const events = await deps.runs.events(run.id, after, request.query.limit);
      const last = events.length ? events[events.length - 1].sequence : after;
      // The run row is read before the events, so a page never claims less than it serves.
      return {
        data: events.map((e) => presentEvent(run.id, e)),
        next_cursor: events.length === request.query.limit ? String(last) : null,
        last_event_sequence: Math.max(run.last_event_sequence, last),
        status: run.status,
      };
    },
  );

  app.get<{ Params: Static<typeof IdParams>; Querystring: Static<typeof StreamQuery> }>(
    '/api/v2/runs/:id/events/stream',
    {
      schema: {
        tags: ['v2'],
        summary:
          'Server-sent events of a run (id: sequence); resumes after Last-Event-ID or ?after; ends after the terminal event',
        params: IdParams,
        querystring: StreamQuery,
        response: { ...errorResponses },
      },
    },
    async (request, reply) => {
      const run = await ownRun(deps, request, request.params.id);
      const header = request.headers['last-event-id'];
      let after = request.query.after ?? 0;
      if (typeof header === 'string' && header.trim() !== '') {
        if (!/^\d+$/.test(header.trim()))
          throw validationError(['header', 'Last-Event-ID'], 'must be an event sequence number');
        after = Number(header.trim());
      }
      reply.hijack();
      const res = reply.raw;
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
        'x-request-id': request.id,
        'x-accel-buffering': 'no',
      });
      res.write('retry: 1000\n\n');
      let closed = false;
      request.raw.on('close', () => (closed = true));
      const poll = deps.eventPollMs ?? 250;
      let idle = 0;
      try {
        while (!closed && !closing) {
          const events = await deps.runs.events(run.id, after, 500);
          for (const e of events) {
            res.write(
              `id: ${e.sequence}\nevent: ${e.type}\ndata: ${JSON.stringify(presentEvent(run.id, e))}\n\n`,
            );
            after = e.sequence;
          }
          const terminal = events.some(
            (e) => e.type.startsWith('run.') && TERMINAL_RUN_STATUSES.includes(e.status as never),
          );
          if (terminal) break;
          if (events.length === 500) continue;
          if (!events.length) {
            const now = await deps.runs.get(null, run.id);
            if (!now || (TERMINAL_RUN_STATUSES.includes(now.status) && now.last_event_sequence <= after))
              break;
            if ((idle += poll) >= 15_000) {
              res.write(': keep-alive\n\n');
              idle = 0;
            }
          }
          if (!closing) await new Promise((r) => setTimeout(r, poll));
        }
      } catch (err) {
        request.log.warn({ err, run: run.id }, 'event stream failed');
      } finally {
        res.end();
      }
    },
  );
}
