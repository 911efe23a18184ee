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

/**
 * The OpenAPI document as clients read it: a body field with a default is optional to the client
 * (the validator fills it in), so it leaves `required` there. TypeBox lists every non-Optional
 * property as required, defaulted or not, and a client generator then demanded `limit`,
 * `timeout_seconds` and `search_mode` of `search_substructure` (user trial). A query parameter
 * with a default is likewise not required. Only the document changes; validation keeps the
 * route's own schema.
 */
export function optionalDefaults<T>(original: T): T {
  // A copy: the generated document may share schema objects with the routes' validators.
  const doc = structuredClone(original);
  const seen = new Set<object>();
  const walk = (node: unknown): void => {
    if (!node || typeof node !== 'object' || seen.has(node)) return;
    seen.add(node);
    if (Array.isArray(node)) return node.forEach(walk);
    const o = node as {
      required?: unknown;
      properties?: Record<string, { default?: unknown }>;
      in?: unknown;
      schema?: { default?: unknown };
    };
    // A query or header parameter with a default (OpenAPI's parameter object): the same, as a
    // boolean (the trial found /molsearch's search_input required, though it has a default).
    if (
      o.required === true &&
      typeof o.in === 'string' &&
      o.in !== 'path' &&
      o.schema &&
      'default' in o.schema
    )
      delete o.required;
    if (Array.isArray(o.required) && o.properties) {
      const props = o.properties;
      o.required = o.required.filter((k) => !(typeof k === 'string' && props[k] && 'default' in props[k]));
      if ((o.required as unknown[]).length === 0) delete o.required;
    }
    for (const v of Object.values(node)) walk(v);
  };
  walk(doc);
  return doc;
}
