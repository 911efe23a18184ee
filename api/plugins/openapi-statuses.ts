import { Type, type TSchema } from '@sinclair/typebox';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { ErrorSchema } from '../routes/v2/common.ts';

/** The FastAPI-shaped error body of the legacy routes (`detail`: a message or a list of issues). */
const LegacyError = Type.Object({ detail: Type.Any() }, { additionalProperties: true });

/**
 * Statuses every route can answer besides its own, by cause: 400 malformed JSON body, 401 no or
 * bad key, 404 unknown resource, 413 body or request too large, 414 path parameter too long, 415
 * body of another media type, 422 validation, 429 daily limit, 503 overloaded or a part down.
 * The legacy generation answers the same causes with its own body.
 */
const COMMON_STATUSES = [400, 401, 404, 413, 414, 415, 422, 429, 503] as const;

/**
 * Completes every documented route's responses with the statuses it can answer, so the OpenAPI
 * document lists them all (a fuzzer finds no undocumented status): registered before the routes,
 * it fills in what a route does not declare itself. A route without a success schema gets a
 * generic one (a file, a stream or an open object, as its summary says).
 */
export function documentAllStatuses(app: FastifyInstance): void {
  app.addHook('onRoute', (route: RouteOptions) => {
    const schema = route.schema as (Record<string, unknown> & { hide?: boolean }) | undefined;
    if (!schema || schema.hide) return;
    const v2 = route.url.startsWith('/api/v2');
    const response: Record<string, unknown> = { ...((schema.response as Record<string, TSchema>) ?? {}) };
    if (!Object.keys(response).some((k) => /^2/.test(k)))
      response[200] = Type.Any({ description: 'Success (see the summary for the body)' });
    const body = v2 ? ErrorSchema : LegacyError;
    for (const status of COMMON_STATUSES) if (!(status in response)) response[status] = body;
    route.schema = { ...schema, response };
  });
}
