import { Type } from '@sinclair/typebox';
import type { App } from '../../types.ts';
import type { RunsService, StreamRead } from '../../services/runs.ts';
import { INT32_MAX } from '../legacy/params.ts';
import { Open, errorResponses } from './common.ts';

const IdParams = Type.Object({ id: Type.String({ maxLength: 100 }) });
const EventsQuery = Type.Object({
  after: Type.Integer({
    minimum: 0,
    maximum: INT32_MAX,
    default: 0,
    description: 'Last sequence seen; events with a greater sequence are returned',
  }),
  limit: Type.Integer({ minimum: 1, maximum: 1000, default: 200 }),
  // Generic page walkers follow next_cursor; it is the last sequence served, so it means `after`.
  cursor: Type.Optional(
    Type.String({
      pattern: '^[0-9]{1,10}$',
      description: 'next_cursor of the previous page (same meaning as after)',
    }),
  ),
});
const StreamQuery = Type.Object({ after: Type.Optional(Type.Integer({ minimum: 0, maximum: INT32_MAX })) });

/** Events as pages (`after`) and as a server-sent-events stream resuming from Last-Event-ID. */
export function registerRunEventRoutes(app: App, runs: RunsService, opts: { eventPollMs?: number }): void {
  // Open streams end when the app closes, so a restart never waits on them; clients reconnect
  // with Last-Event-ID and resume.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.get(
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
    (request) => runs.events(request.account.id, request.params.id, request.query),
  );

  app.get(
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
      const header = request.headers['last-event-id'];
      const stream = await runs.openEventStream(request.account.id, request.params.id, {
        lastEventId: typeof header === 'string' ? header : undefined,
        after: request.query.after,
      });
      // The first read happens before the 200 is written, so a failing database is an error
      // status (through the error handler), never a 200 with an empty stream.
      let pending: StreamRead | undefined = await stream.read(stream.after);
      // The transport: SSE frames over the raw response, polling the service for new events.
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
      const poll = opts.eventPollMs ?? 250;
      let after = stream.after;
      let idle = 0;
      try {
        while (!closed && !closing) {
          const read = pending ?? (await stream.read(after));
          pending = undefined;
          for (const e of read.events) {
            res.write(`id: ${e.sequence}\nevent: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`);
            after = e.sequence;
          }
          if (read.done) break;
          if (read.more) continue;
          if (!read.events.length && (idle += poll) >= 15_000) {
            res.write(': keep-alive\n\n');
            idle = 0;
          }
          if (!closing) await new Promise((r) => setTimeout(r, poll));
        }
      } catch (err) {
        // Headers are out: say so in the stream (clients see an error event, then reconnect).
        request.log.warn({ err, run: stream.runId }, 'event stream failed');
        res.write(`event: error\ndata: ${JSON.stringify({ code: 'unavailable', retryable: true })}\n\n`);
      } finally {
        res.end();
      }
    },
  );
}
