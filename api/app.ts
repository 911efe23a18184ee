import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { randomUUID } from 'node:crypto';
import type { Logger } from '../platform/logger.ts';
import { registerErrorHandler } from './plugins/errors.ts';
import { registerAuth, type AccountsPort } from './plugins/auth.ts';
import { normalizeLegacyQuery } from './plugins/legacy-query.ts';
import type { SearchService } from './services/search-service.ts';
import { registerMetaRoutes, type HealthCheck } from './routes/legacy/meta.ts';
import { registerRateLimitRoutes } from './routes/legacy/rate-limit.ts';
import { registerSearchRoutes } from './routes/legacy/search.ts';
import { registerWebApp } from './plugins/web-app.ts';

export interface AppDeps {
  log: Logger;
  accounts: AccountsPort;
  search: SearchService;
  health: HealthCheck[];
  /** Extra route groups (jobs, v2, ADMET) registered by their capabilities. */
  plugins?: ((app: FastifyInstance) => Promise<void> | void)[];
  maxParamLength?: number;
}

export const API_VERSION = '0.0.1';

/** Builds the HTTP app without listening, so tests can call it with inject(). */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: deps.log as FastifyBaseLogger,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[\w.-]{1,100}$/.test(given) ? given : `req_${randomUUID()}`;
    },
    logController: new LogController({ requestIdLogLabel: 'request_id' }),
    bodyLimit: 16 * 1024 * 1024,
    routerOptions: { maxParamLength: deps.maxParamLength ?? 500 },
    ajv: {
      customOptions: { coerceTypes: 'array', useDefaults: true, removeAdditional: false, allErrors: true },
    },
  });
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  app.addHook('preValidation', async (request) => normalizeLegacyQuery(request));
  registerErrorHandler(app);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Molecule search service',
        version: API_VERSION,
        description:
          'Fingerprint, substructure and property search over purchasable catalogs; durable jobs; ADMET predictions. Legacy root paths and /api/v2.',
      },
      components: {
        securitySchemes: {
          APIKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        },
      },
      security: [{ APIKeyHeader: [] }],
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list' } });
  registerAuth(app, deps.accounts);
  app.get('/openapi.json', { config: { auth: false }, schema: { hide: true } }, async () => app.swagger());
  registerMetaRoutes(app, deps);
  registerRateLimitRoutes(app);
  registerSearchRoutes(app, deps.search);
  for (const plugin of deps.plugins ?? []) await plugin(app);
  await registerWebApp(app);
  return app as unknown as FastifyInstance;
}
