import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, jsonPath, type ErrorCode, type FieldIssue } from '../../platform/errors.ts';
import { trackAllowedMethods } from './allowed-methods.ts';

/**
 * The one mapping of domain error codes to HTTP statuses. Everything below the API (engine, store,
 * services, activities) throws DomainError with a code; only this file knows what it means in HTTP.
 */
export const HTTP_STATUS: Record<ErrorCode, number> = {
  validation_error: 422,
  invalid_smiles: 422,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  idempotency_conflict: 409,
  payload_too_large: 413,
  credit_limit_exceeded: 429,
  capability_unavailable: 422,
  overloaded: 503,
  unavailable: 503,
  internal: 500,
};

/** Which error body a request gets: v2 routes answer the envelope, everything else FastAPI-shaped. */
export function isV2(request: FastifyRequest): boolean {
  return request.url.startsWith('/api/v2');
}

type AjvError = { instancePath: string; message?: string; keyword: string; params: Record<string, unknown> };

/** Turns Fastify/Ajv validation errors into field issues whose `loc` names the parameter. */
export function issuesFromValidation(err: FastifyError): FieldIssue[] {
  const raw = (err as { validationContext?: string }).validationContext ?? 'querystring';
  // FastAPI names the query string 'query'; clients match on that.
  const context = raw === 'querystring' ? 'query' : raw;
  const list = collapseLiteralUnions(((err as { validation?: AjvError[] }).validation ?? []) as AjvError[]);
  return list.map((v) => {
    const path = v.instancePath
      .split('/')
      .filter(Boolean)
      .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
    if (v.keyword === 'required' && typeof v.params.missingProperty === 'string')
      path.push(v.params.missingProperty);
    if (v.keyword === 'additionalProperties' && typeof v.params.additionalProperty === 'string')
      path.push(v.params.additionalProperty);
    let msg = v.message ?? 'invalid value';
    if (v.keyword === 'enum' && Array.isArray(v.params.allowedValues))
      msg = `must be one of: ${v.params.allowedValues.join(', ')}`;
    // A single-value literal (sampling_method): name the one value, as the enum case lists them.
    if (v.keyword === 'const' && 'allowedValue' in v.params)
      msg = `must be one of: ${String(v.params.allowedValue)}`;
    if (v.keyword === 'additionalProperties') msg = 'unknown field';
    return { loc: [context, ...path], msg, type: `value_error.${v.keyword}` };
  });
}

/**
 * A union of literals (our enums) makes Ajv report one `const` error per allowed value plus an
 * `anyOf`; clients need one issue per field that lists the allowed values, like FastAPI's enum error.
 */
function collapseLiteralUnions(list: AjvError[]): AjvError[] {
  const byPath = new Map<string, AjvError[]>();
  for (const v of list) byPath.set(v.instancePath, [...(byPath.get(v.instancePath) ?? []), v]);
  const out: AjvError[] = [];
  const done = new Set<string>();
  for (const v of list) {
    const group = byPath.get(v.instancePath)!;
    const isEnum =
      group.some((g) => g.keyword === 'anyOf') &&
      group.every((g) => g.keyword === 'anyOf' || g.keyword === 'const');
    if (!isEnum) {
      out.push(v);
      continue;
    }
    if (done.has(v.instancePath)) continue;
    done.add(v.instancePath);
    const allowedValues = group.filter((g) => g.keyword === 'const').map((g) => g.params.allowedValue);
    out.push({
      instancePath: v.instancePath,
      keyword: 'enum',
      message: undefined,
      params: { allowedValues },
    });
  }
  return out;
}

function v2Body(
  request: FastifyRequest,
  code: string,
  message: string,
  retryable: boolean,
  issues?: FieldIssue[],
) {
  const error: Record<string, unknown> = { code, message, request_id: request.id, retryable };
  if (issues?.length) {
    error.details = issues.map((i) => ({ path: jsonPath(i.loc), message: i.msg, type: i.type }));
    // The released Python client reads `field` (dotted, e.g. `database.database_id`) into
    // DeepMedChemError.field; it was None for every 422 (user trial).
    error.field = jsonPath(issues[0].loc).replace(/^\$\.?/, '');
  }
  return { error };
}

/** The single error handler: stable codes to statuses, 5xx details hidden. */
export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError | DomainError, request: FastifyRequest, reply: FastifyReply) => {
    const v2 = isV2(request);
    if (err instanceof DomainError) {
      const status = HTTP_STATUS[err.code];
      if (err.retryAfterSeconds !== undefined) reply.header('retry-after', String(err.retryAfterSeconds));
      if (status >= 500) request.log.error({ err }, 'request failed');
      if (v2)
        return reply.status(status).send(v2Body(request, err.code, err.message, err.retryable, err.issues));
      if (status === 422 && err.issues.length) return reply.status(422).send({ detail: err.issues });
      return reply.status(status).send({ detail: err.message });
    }
    const fe = err as FastifyError;
    if (fe.validation) {
      const issues = issuesFromValidation(fe);
      if (v2)
        return reply
          .status(422)
          .send(
            v2Body(
              request,
              'validation_error',
              issues.map((i) => `${jsonPath(i.loc)}: ${i.msg}`).join('; '),
              false,
              issues,
            ),
          );
      return reply.status(422).send({ detail: issues });
    }
    // A body that is not JSON, or empty under a JSON content type: a 422 naming the body, as
    // FastAPI answers (Fastify's own 400 named no field; user trial).
    if (fe.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' || fe.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
      const msg =
        fe.code === 'FST_ERR_CTP_EMPTY_JSON_BODY'
          ? 'the body is empty, but its content type says JSON: send {} for no fields'
          : 'not valid JSON';
      const issues: FieldIssue[] = [{ loc: ['body'], msg, type: 'value_error.json' }];
      if (v2) return reply.status(422).send(v2Body(request, 'validation_error', `$: ${msg}`, false, issues));
      return reply.status(422).send({ detail: issues });
    }
    const status = fe.statusCode && fe.statusCode >= 400 && fe.statusCode < 500 ? fe.statusCode : 500;
    if (status === 500) request.log.error({ err }, 'unhandled error');
    const message = status === 500 ? 'internal server error' : fe.message;
    const code =
      status === 500
        ? 'internal'
        : status === 413
          ? 'payload_too_large'
          : status === 404
            ? 'not_found'
            : 'validation_error';
    if (v2) return reply.status(status).send(v2Body(request, code, message, status >= 500));
    return reply.status(status).send({ detail: message });
  });
  const allowedMethods = trackAllowedMethods(app);
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0];
    const allowed = allowedMethods(path);
    if (allowed.length > 0 && !allowed.includes(request.method)) {
      reply.header('allow', allowed.join(', '));
      const message = `${request.method} is not allowed on ${path}: use ${allowed.join(', ')}`;
      if (isV2(request)) return reply.status(405).send(v2Body(request, 'method_not_allowed', message, false));
      return reply.status(405).send({ detail: 'Method Not Allowed' });
    }
    const message = `no route ${request.method} ${path}`;
    if (isV2(request)) return reply.status(404).send(v2Body(request, 'not_found', message, false));
    return reply.status(404).send({ detail: 'Not Found' });
  });
}
