/**
 * Gives every request its limits (api/services/request-limits.ts): a deadline `deadlineMs` after
 * arrival for synchronous work, and a signal aborted when the client closes the connection before
 * the answer is written. Routes with their own deadline (v2 substructure's timeout_seconds) pass
 * theirs explicitly; these are the default for every other pool call.
 */
import type { FastifyInstance } from 'fastify';
import { withRequestLimits } from '../services/request-limits.ts';

/** Whole-life deadline of a synchronous request's pool work (30 s, as clients' timeouts go). */
export const SYNC_DEADLINE_MS = 30_000;

export function registerRequestLimits(app: FastifyInstance, deadlineMs = SYNC_DEADLINE_MS): void {
  app.addHook('onRequest', (request, reply, done) => {
    const gone = new AbortController();
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) gone.abort(new Error('client closed the connection'));
    });
    withRequestLimits({ deadline: Date.now() + deadlineMs, signal: gone.signal }, done);
  });
}
