import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { randomUUID } from 'node:crypto';
import type { Logger } from '../platform/logger.ts';
import { registerErrorHandler } from './plugins/errors.ts';
import { registerAuth, type AccountsPort } from './plugins/auth.ts';
import { normalizeLegacyQuery } from './plugins/legacy-query.ts';
import { rejectNulBytes } from './plugins/input-guard.ts';
import { registerValidators } from './plugins/validators.ts';
import { documentAllStatuses, optionalDefaults } from './plugins/openapi-statuses.ts';
import type { SearchService } from './services/search-service.ts';
import type { JobService } from './services/jobs.ts';
import type { DownloadService } from './services/jobs-downloads.ts';
import type { FileService } from './services/jobs-files.ts';
import type { SynthonJobService } from './services/synthon-jobs.ts';
import type { AdmetService } from './services/admet.ts';
import type { AnalysisService } from './services/analysis.ts';
import type { InstallationService } from './services/installation.ts';
import { registerMetaRoutes, type HealthCheck } from './routes/legacy/meta.ts';
import type { ThreeDStatusService } from './services/three-d-status.ts';
import type { ShapeSearchService } from './services/shape-search.ts';
import { registerRateLimitRoutes } from './routes/legacy/rate-limit.ts';
import { registerSearchRoutes } from './routes/legacy/search.ts';
import { registerBatchSearchRoute } from './routes/legacy/search-batch.ts';
import { registerJobRoutes } from './routes/legacy/jobs.ts';
import { registerSynthonJobRoute } from './routes/legacy/jobs-synthon.ts';
import { registerDownloadRoutes } from './routes/legacy/downloads.ts';
import { registerFileRoutes } from './routes/legacy/jobs-files.ts';
import { registerPredictRoutes } from './routes/legacy/predict.ts';
import { registerSimilarityRoutes } from './routes/legacy/similarity.ts';
import { registerArraySearchRoutes } from './routes/legacy/search-array.ts';
import { registerEmbeddingRoutes } from './routes/legacy/embeddings.ts';
import { registerAnalysisJobRoutes } from './routes/legacy/analysis-jobs.ts';
import { registerClusterRoutes } from './routes/legacy/clustering.ts';
import { registerMapRoutes } from './routes/legacy/maps.ts';
import { registerHistogramRoutes } from './routes/legacy/histograms.ts';
import { registerInstallationRoutes } from './routes/legacy/installation.ts';
import { registerV2Routes, type V2Services } from './routes/v2/index.ts';
import { registerWebApp } from './plugins/web-app.ts';
import { registerMetrics } from './plugins/metrics.ts';
import { registerRequestLimits } from './plugins/request-limits.ts';
import type { MetricsRegistry } from '../platform/metrics.ts';

export type { HealthCheck } from './routes/legacy/meta.ts';
export type { V2Services } from './routes/v2/index.ts';

/** The legacy durable capabilities: jobs, synthon-job validation, downloads, uploads and /search_file. */
export interface LegacyJobServices {
  jobs: JobService;
  synthonJobs: SynthonJobService;
  downloads: DownloadService;
  files: FileService;
}

/**
 * What the app serves: services only (never a database handle or a Temporal client). Route groups
 * whose services are absent are not registered (tests build the part they exercise).
 */
export interface AppDeps {
  log: Logger;
  accounts: AccountsPort;
  /** Legacy synchronous search and the database listings. */
  search: SearchService;
  health: HealthCheck[];
  /** 3D readiness per database for /available_databases_full (absent: not reported). */
  threeD?: ThreeDStatusService;
  /** espsim_shape / espsim_electrostatic search (absent: those types answer capability_unavailable). */
  shape?: ShapeSearchService;
  /** Prometheus registry served at /metrics (with the request latency histogram). */
  metrics?: MetricsRegistry;
  legacyJobs?: LegacyJobServices;
  admet?: AdmetService;
  /** The legacy analysis operations (similarity, embeddings, clustering, maps). */
  analysis?: AnalysisService;
  /** SMARTS prefilter patterns and the licence key. */
  installation?: InstallationService;
  v2?: V2Services;
  /** How often a v2 event stream polls for new events (ms, default 250). */
  eventPollMs?: number;
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
  }).withTypeProvider<TypeBoxTypeProvider>();
  registerRequestLimits(app);
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  app.addHook('preValidation', async (request) => {
    rejectNulBytes(request);
    normalizeLegacyQuery(request);
  });
  registerErrorHandler(app);
  registerValidators(app);
  documentAllStatuses(app);
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
    transformObject: (d) => ('openapiObject' in d ? optionalDefaults(d.openapiObject) : d.swaggerObject),
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list' } });
  registerAuth(app, deps.accounts);
  app.get('/openapi.json', { config: { auth: false }, schema: { hide: true } }, async () => app.swagger());
  if (deps.metrics) registerMetrics(app, deps.metrics);
  registerMetaRoutes(app, deps);
  registerRateLimitRoutes(app);
  registerSearchRoutes(app, deps.search, deps.shape);
  registerBatchSearchRoute(app, deps.search, deps.shape);
  if (deps.admet) registerPredictRoutes(app, deps.admet);
  if (deps.installation) registerInstallationRoutes(app, deps.installation);
  if (deps.analysis) {
    registerArraySearchRoutes(app, deps.analysis, deps.search, deps.shape);
    registerSimilarityRoutes(app, deps.analysis, deps.search);
    registerEmbeddingRoutes(app, deps.analysis);
    registerClusterRoutes(app, deps.analysis);
    registerMapRoutes(app, deps.analysis);
    registerHistogramRoutes(app, deps.analysis);
    registerAnalysisJobRoutes(app, deps.analysis);
  }
  if (deps.legacyJobs) {
    const { jobs, synthonJobs, downloads, files } = deps.legacyJobs;
    registerJobRoutes(app, { jobs, search: deps.search, shape: deps.shape, synthonJobs });
    registerSynthonJobRoute(app, synthonJobs);
    registerDownloadRoutes(app, downloads);
    registerFileRoutes(app, { files, search: deps.search, shape: deps.shape });
  }
  if (deps.v2) registerV2Routes(app, deps.v2, { eventPollMs: deps.eventPollMs });
  await registerWebApp(app);
  return app;
}
