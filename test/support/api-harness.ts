import type { FastifyInstance } from 'fastify';
import { createLogger } from '../../platform/logger.ts';
import { DEFAULT_TIER_LIMITS } from '../../platform/config.ts';
import { openStore, type Store } from '../../store/index.ts';
import { createSearchPool, type SearchPool } from '../../engine/search/index.ts';
import type { Catalog } from '../../engine/catalog/index.ts';
import { buildApp } from '../../api/app.ts';
import { createCatalogSearchService } from '../../api/services/catalog-search.ts';
import { createAnalysisService } from '../../api/services/analysis.ts';
import { createInstallationService } from '../../api/services/installation.ts';
import { createAnalysisPool, type AnalysisPool } from '../../engine/analysis/index.ts';
import { createLocalObjectStore, type ObjectStore } from '../../platform/object-store/index.ts';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withSynthonSpaces } from '../../api/services/space-search.ts';
import type { BackgroundBuild } from '../../engine/synthons/bundled.ts';
import { createSpacePool } from '../../engine/synthons/space-pool.ts';
import { readManifest } from '../../engine/synthons/format.ts';
import { withV2Spaces } from '../../api/services/v2-space-search.ts';
import { withSpaceSelections } from '../../api/services/space-selections.ts';
import type { V2Services } from '../../api/app.ts';
import type { ThreeDStatusService } from '../../api/services/three-d-status.ts';

/**
 * The v2 services of a spaces-only test: the catalog side, selections and runs are not under test
 * (v2/harness.ts runs them for real), so they refuse (fakes of parts not under test).
 */
const notUnderTest = () => Promise.reject(new Error('not under test'));
const V2_NOT_UNDER_TEST = new Proxy({}, { get: () => notUnderTest });

export interface ApiHarness {
  app: FastifyInstance;
  store: Store;
  pool: SearchPool;
  key: string;
  /** The account of `key`. */
  accountId: string;
  /** The object store of the analysis routes (with `analysis: true`). */
  objects?: ObjectStore;
  close(): Promise<void>;
}

/** The real API over real catalogs, a real engine pool and an in-memory PGlite store. */
export async function startApiHarness(
  catalogs: Catalog[],
  opts: {
    tierLimits?: Record<string, number>;
    tier?: string;
    analysis?: boolean;
    spaceDirs?: string[];
    /** Serve /api/v2 with the spaces (searches, sample, selections; the catalog side and runs refuse). */
    v2Spaces?: boolean;
    /** The space that is the default database (bundled.json `default`). */
    defaultSpace?: string;
    /** Time budget of a legacy space search (default the service's 20 s). */
    spaceTimeoutMs?: number;
    /** Background builds of spaces not served yet (their state as /health reports it). */
    spaceBuilds?: BackgroundBuild[];
    /** 3D readiness per catalog (/available_databases_full's three_d). */
    threeD?: ThreeDStatusService;
  } = {},
): Promise<ApiHarness> {
  const log = createLogger({ level: 'warn', pretty: false });
  const store = await openStore(
    { pgliteDir: 'memory://', tierLimits: { ...DEFAULT_TIER_LIMITS, ...opts.tierLimits } },
    log,
  );
  const pool = createSearchPool({ threads: 2, log });
  for (const c of catalogs) await pool.loadCatalog(c);
  const catalogSearch = await createCatalogSearchService({ catalogs, pool, log });
  // Synthon spaces (built directories) on their own engine thread, when a test gives some.
  const spacePool = opts.spaceDirs?.length ? createSpacePool({ dirs: opts.spaceDirs }) : undefined;
  const spaceEntries = await Promise.all(
    (opts.spaceDirs ?? []).map(async (d) => ({
      manifest: await readManifest(d),
      vendor: 'test',
      website: '',
    })),
  );
  const search = spacePool
    ? await withSynthonSpaces(catalogSearch, spaceEntries, spacePool, {
        defaultSpace: opts.defaultSpace,
        spaceTimeoutMs: opts.spaceTimeoutMs,
        builds: () => opts.spaceBuilds ?? [],
      })
    : catalogSearch;
  const v2 =
    spacePool && opts.v2Spaces
      ? ({
          search: withV2Spaces(
            {
              ...V2_NOT_UNDER_TEST,
              catalog: async () => ({ libraries: [] }),
            } as unknown as V2Services['search'],
            spaceEntries,
            spacePool,
            undefined,
            { pending: () => search.pending?.() ?? [] },
          ),
          selections: withSpaceSelections(
            V2_NOT_UNDER_TEST as unknown as V2Services['selections'],
            spaceEntries,
            spacePool,
          ),
          runs: V2_NOT_UNDER_TEST,
        } as unknown as V2Services)
      : undefined;
  // The analysis routes: a real analysis thread and a local object store for stored clusterings.
  let analysisPool: AnalysisPool | undefined;
  let objectsDir: string | undefined;
  let objects: ObjectStore | undefined;
  if (opts.analysis) {
    analysisPool = createAnalysisPool({ threads: 1 });
    objectsDir = await mkdtemp(join(tmpdir(), 'analysis-objects-'));
    objects = createLocalObjectStore(objectsDir);
  }
  const app = await buildApp({
    log,
    accounts: store.accounts,
    search,
    analysis: analysisPool
      ? createAnalysisService({ pool: analysisPool, search, objects: objects! })
      : undefined,
    installation: opts.analysis
      ? createInstallationService({ installationId: 'test-installation' })
      : undefined,
    health: [{ name: 'catalogs', check: async () => {} }],
    threeD: opts.threeD,
    v2,
  });
  const { key, accountId } = await store.accounts.createApiKey({
    user: 'tester',
    tier: opts.tier ?? 'premium',
  });
  return {
    app,
    store,
    pool,
    key,
    accountId,
    objects,
    async close() {
      await app.close();
      await pool.close();
      await analysisPool?.close();
      if (objectsDir) await rm(objectsDir, { recursive: true, force: true });
      await spacePool?.close();
      await store.close();
    },
  };
}
