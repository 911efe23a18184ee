import type { ThreeDStatusService } from '../../services/three-d-status.ts';
import { Type } from '@sinclair/typebox';
import type { App } from '../../types.ts';
import { validationError } from '../../../platform/errors.ts';
import type { SearchService } from '../../services/search-service.ts';
import type { PendingDatabase } from '../../services/pending-databases.ts';
import { INT32_MAX } from './params.ts';

/**
 * One readiness probe: resolves when the part works, throws (with a reason) when it does not; it
 * may resolve with details to show (e.g. the fleet's members and uncovered shards).
 */
export interface HealthCheck {
  name: string;
  check(): Promise<void | Record<string, unknown>>;
}

export const MAX_RANDOM_MOLECULES = 1000;

const DatabaseSummary = Type.Object(
  {
    vendor: Type.String(),
    vendor_web_page: Type.String(),
    number_of_molecules: Type.Integer(),
    quotation_contact: Type.String(),
  },
  { additionalProperties: true },
);

const HealthSchema = Type.Object({
  status: Type.String(),
  checks: Type.Record(
    Type.String(),
    Type.Object({
      ok: Type.Boolean(),
      error: Type.Optional(Type.String()),
      detail: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    }),
  ),
});

/**
 * A database that cannot be searched yet (a synthon space being built): listed with its state, so
 * a client sees it coming; a search naming it answers 422 value_error.not_ready.
 */
function pendingSummary(p: PendingDatabase) {
  return {
    vendor: p.vendor,
    vendor_web_page: p.website,
    number_of_molecules: p.molecules,
    quotation_contact: p.website,
    name: p.name,
    status: p.build.status,
    searchable: false,
    build: p.build,
  };
}

async function runChecks(checks: HealthCheck[]) {
  const results = await Promise.all(
    checks.map(async (c) => {
      try {
        const detail = await Promise.race([
          c.check(),
          new Promise<never>((_, rej) =>
            setTimeout(() => rej(new Error('timed out after 3 s')), 3000).unref(),
          ),
        ]);
        return [c.name, detail ? { ok: true, detail } : { ok: true }] as const;
      } catch (err) {
        return [c.name, { ok: false, error: err instanceof Error ? err.message : String(err) }] as const;
      }
    }),
  );
  return Object.fromEntries(results) as Record<
    string,
    { ok: boolean; error?: string; detail?: Record<string, unknown> }
  >;
}

/** /health, /test, /available_databases(_full), /license_information, /random_molecule. */
export function registerMetaRoutes(
  app: App,
  deps: { search: SearchService; health: HealthCheck[]; threeD?: ThreeDStatusService },
): void {
  const { search } = deps;
  app.get(
    '/health',
    {
      config: { auth: false },
      schema: {
        tags: ['service'],
        summary: 'Readiness: Temporal, database, object store, catalogs',
        response: { 200: HealthSchema, 503: HealthSchema },
      },
    },
    async (_req, reply) => {
      const checks = await runChecks(deps.health);
      const failing = Object.entries(checks)
        .filter(([, v]) => !v.ok)
        .map(([k]) => k);
      if (failing.length)
        return reply.status(503).send({ status: `unavailable: ${failing.join(', ')}`, checks });
      return { status: 'ok', checks };
    },
  );
  app.get(
    '/test',
    {
      config: { auth: false },
      schema: {
        tags: ['service'],
        summary: 'Liveness',
        response: { 200: Type.Object({ message: Type.String() }) },
      },
    },
    async () => ({ message: 'molecule search service is running' }),
  );

  app.get(
    '/available_databases',
    {
      schema: {
        tags: ['databases'],
        summary: 'Databases keyed by name',
        response: { 200: Type.Record(Type.String(), DatabaseSummary) },
      },
    },
    async () => ({
      ...Object.fromEntries(
        search.databases().map((d) => [
          d.id,
          {
            vendor: d.vendor,
            vendor_web_page: d.website,
            number_of_molecules: d.molecules,
            quotation_contact: d.contact,
            name: d.name,
            status: 'ready',
            searchable: true,
          },
        ]),
      ),
      ...Object.fromEntries((search.pending?.() ?? []).map((p) => [p.id, pendingSummary(p)])),
    }),
  );
  app.get(
    '/available_databases_full',
    {
      schema: {
        tags: ['databases'],
        summary: 'Databases with release, kind and search types',
        response: { 200: Type.Record(Type.String(), DatabaseSummary) },
      },
    },
    async () => {
      const dbs = search.databases();
      // 3D readiness changes while the service runs (a 3D stage completes): read it per request.
      const threeD = await Promise.all(dbs.map((d) => deps.threeD?.status(d.id) ?? null));
      return Object.fromEntries([
        ...dbs.map((d, i) => [
          d.id,
          {
            vendor: d.vendor,
            vendor_web_page: d.website,
            number_of_molecules: d.molecules,
            quotation_contact: d.contact,
            name: d.name,
            release: d.release,
            kind: d.kind,
            search_types: threeD[i]?.search_types ?? d.searchTypes,
            three_d: threeD[i] ?? null,
            predicted_properties: d.hasPredictions,
            license: d.license ?? null,
            source: d.source ?? null,
            default: d.id === search.defaultDatabase(),
            status: 'ready',
            searchable: true,
          },
        ]),
        ...(search.pending?.() ?? []).map((p) => [
          p.id,
          {
            ...pendingSummary(p),
            release: null,
            kind: p.kind,
            search_types: [],
            three_d: null,
            predicted_properties: false,
            license: p.license ?? null,
            source: null,
            default: false,
          },
        ]),
      ]);
    },
  );
  app.get(
    '/license_information',
    { schema: { tags: ['service'], response: { 200: Type.Object({}, { additionalProperties: true }) } } },
    async () => ({
      service_license: 'MIT',
      databases: Object.fromEntries(
        search
          .databases()
          .map((d) => [d.id, { license: d.license ?? 'see source', source: d.source ?? null }]),
      ),
      software: { rdkit: 'BSD-3-Clause', temporal: 'MIT', onnxruntime: 'MIT', 'apache-arrow': 'Apache-2.0' },
    }),
  );

  const RandomQuery = Type.Object({
    n_mols: Type.Integer({
      default: 1,
      maximum: INT32_MAX,
      description: `How many molecules (1 to ${MAX_RANDOM_MOLECULES})`,
    }),
  });
  app.get(
    '/random_molecule',
    {
      schema: {
        tags: ['databases'],
        summary: 'Random molecules from the served databases',
        querystring: RandomQuery,
        response: { 200: Type.Array(Type.String()) },
      },
    },
    async (request) => {
      const { n_mols } = request.query;
      if (n_mols < 1 || n_mols > MAX_RANDOM_MOLECULES)
        throw validationError(
          ['query', 'n_mols'],
          `must be between 1 and ${MAX_RANDOM_MOLECULES}, got ${n_mols}`,
        );
      return (await search.random(n_mols)).map((m) => m.smiles);
    },
  );
}
