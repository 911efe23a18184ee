import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../../../api/app.ts';
import { createRunsService } from '../../../../api/services/runs.ts';
import { createSelectionsService } from '../../../../api/services/selections.ts';
import { createV2SearchService } from '../../../../api/services/v2-search.ts';
import type { SearchService } from '../../../../api/services/search-service.ts';
import { createActivities } from '../../../../activities/index.ts';
import { DEFAULT_TIER_LIMITS } from '../../../../platform/config.ts';
import { createLogger } from '../../../../platform/logger.ts';
import { createLocalObjectStore } from '../../../../platform/object-store/index.ts';
import { openStore, type Store } from '../../../../store/index.ts';
import {
  createSelectionPool,
  staticRegistry,
  type Library,
  type SelectionPool,
} from '../../../../engine/selection/index.ts';
import { createSubstructureRunner } from '../../../../engine/substructure/index.ts';
import { startWorkers, type RunningWorkers } from '../../../../worker/worker.ts';
import { BACKENDS, type TestTarget } from '../../../store/backends.ts';
import { drugsLibrary, pricedDrugsLibrary } from '../../../../testkit/drugs-library.ts';
import { createSpacePool } from '../../../../engine/synthons/space-pool.ts';
import { readManifest } from '../../../../engine/synthons/format.ts';
import { withSpaceLibraries } from '../../../../engine/synthons/space-selection.ts';
import { spaceLibrary, withSpaceSelections } from '../../../../api/services/space-selections.ts';
import { withV2Spaces } from '../../../../api/services/v2-space-search.ts';
import { createShapePool } from '../../../../engine/shape/index.ts';

/**
 * A stand-in for the legacy SearchService that buildApp requires; the v2 tests never call the
 * legacy search routes, so every method is unavailable (a fake of a part not under test).
 */
const NO_LEGACY_SEARCH: SearchService = {
  databases: () => [],
  defaultDatabase: () => 'none',
  availableFilters: () => [],
  availableOrderings: () => [],
  ready: () => false,
  similarity: () => Promise.reject(new Error('not under test')),
  batch: () => Promise.reject(new Error('not under test')),
  centroid: () => Promise.reject(new Error('not under test')),
  byEmbedding: () => Promise.reject(new Error('not under test')),
  propertyValues: () => undefined,
  random: () => Promise.reject(new Error('not under test')),
};

export interface Harness {
  app: FastifyInstance;
  /** The selection pool sync selections and run items execute on (absent with selectionPool: false). */
  selectionPool?: SelectionPool;
  store: Store;
  lib: Library;
  prefix: string;
  dataDir: string;
  temporalAddress: string;
  databaseUrl?: string;
  keys: { alice: string; bob: string };
  /** Base URL once listen() was called. */
  url?: string;
  /** Listens on a free loopback port (for real HTTP clients such as an SSE consumer). */
  listen(): Promise<string>;
  /** Closes the HTTP app and builds a new one over the same store (an API restart); listens again if it was. */
  restartApp(): Promise<void>;
  stopWorkers(): Promise<void>;
  startWorkers(): Promise<void>;
  close(): Promise<void>;
}

/** Starts the v2 API over a real database (PGlite or PostgreSQL), a real Temporal dev server and a local object store. */
export async function startHarness(
  opts: {
    backend?: 'pglite' | 'postgres';
    worker?: boolean;
    itemTimeoutSeconds?: number;
    concurrency?: number;
    selectionPool?: boolean;
    /** Built synthon space directories served beside the drugs library (searches, selections, runs). */
    spaceDirs?: string[];
    /** Also serve `drugs-priced` (the same molecules with list prices; price-constraint tests). */
    pricedLibrary?: boolean;
  } = {},
): Promise<Harness> {
  const log = createLogger({ level: 'warn' });
  const backend = BACKENDS.find((b) => b.name === (opts.backend ?? 'pglite'))!;
  if (!backend.available) throw new Error(`backend ${backend.title} unavailable`);
  const target: TestTarget = await backend.open();
  const dataDir = mkdtempSync(join(tmpdir(), 'molsearch-v2-'));
  const store = await openStore({
    databaseUrl: target.databaseUrl,
    pgliteDir: target.pgliteDir,
    tierLimits: { ...DEFAULT_TIER_LIMITS },
  });
  const objects = createLocalObjectStore(join(dataDir, 'objects'));
  const lib = await drugsLibrary();
  const libraries = staticRegistry(opts.pricedLibrary ? [lib, await pricedDrugsLibrary()] : [lib]);
  const spacePool = opts.spaceDirs?.length ? createSpacePool({ dirs: opts.spaceDirs }) : undefined;
  const spaces = await Promise.all(
    (opts.spaceDirs ?? []).map(async (d) => ({
      manifest: await readManifest(d),
      vendor: 'test',
      website: '',
    })),
  );
  // As in bin/stack.ts: runs judge and execute documents naming a space against its facts.
  const runLibraries = withSpaceLibraries(libraries, spaces.map(spaceLibrary));
  const temporalAddress = inject('temporalAddress');
  const connection = await Connection.connect({ address: temporalAddress });
  const temporal = new Client({ connection });
  const prefix = `v2t-${randomBytes(4).toString('hex')}`;
  const substructure = createSubstructureRunner();
  // As in bin/stack.ts, selections run on a pool thread unless a test asks for the in-thread path.
  const selectionPool = opts.selectionPool === false ? undefined : createSelectionPool({ threads: 1 });
  // The workers' shape pool (no 3D job runs here: its thread starts on first use, so it stays idle).
  const shapePool = createShapePool({ threads: 1 });
  const v2 = {
    search: spacePool
      ? withV2Spaces(createV2SearchService({ libraries, substructure }), spaces, spacePool)
      : createV2SearchService({ libraries, substructure }),
    selections: spacePool
      ? withSpaceSelections(
          createSelectionsService({ libraries, selectionPool }),
          spaces,
          spacePool,
          selectionPool,
        )
      : createSelectionsService({ libraries, selectionPool }),
    runs: createRunsService({
      runs: store.runs,
      libraries: runLibraries,
      objects,
      workflows: temporal.workflow,
      taskQueuePrefix: prefix,
      concurrency: opts.concurrency ?? 4,
      itemTimeoutSeconds: opts.itemTimeoutSeconds ?? 60,
      itemAttempts: 3,
    }),
  };
  const build = () =>
    buildApp({ log, accounts: store.accounts, search: NO_LEGACY_SEARCH, health: [], v2, eventPollMs: 50 });
  let workers: RunningWorkers | undefined;
  const harness: Harness = {
    app: await build(),
    selectionPool,
    store,
    lib,
    prefix,
    dataDir,
    temporalAddress,
    databaseUrl: target.databaseUrl,
    keys: {
      alice: (await store.accounts.createApiKey({ user: `alice-${prefix}`, tier: 'enterprise' })).key,
      bob: (await store.accounts.createApiKey({ user: `bob-${prefix}`, tier: 'enterprise' })).key,
    },
    async listen() {
      harness.url = await harness.app.listen({ host: '127.0.0.1', port: 0 });
      return harness.url;
    },
    async restartApp() {
      const listening = harness.url !== undefined;
      await harness.app.close();
      harness.url = undefined;
      harness.app = await build();
      if (listening) await harness.listen();
    },
    async startWorkers() {
      workers = await startWorkers({
        address: temporalAddress,
        namespace: 'default',
        prefix,
        // v2 libraries are given; no legacy job runs here, so the catalog directory holds none.
        activities: createActivities({
          log,
          store,
          objects,
          catalogDir: dataDir,
          libraries: runLibraries,
          selectionPool,
          spaces: spacePool,
          shapePool,
        }),
        log,
        kinds: ['orchestration', 'scan'],
      });
    },
    async stopWorkers() {
      await workers?.shutdown();
      workers = undefined;
    },
    async close() {
      await harness.app.close();
      await workers?.shutdown();
      await substructure.close();
      await selectionPool?.close();
      await shapePool.close();
      await spacePool?.close();
      await connection.close();
      await store.close();
      await target.dispose();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  if (opts.worker) await harness.startWorkers();
  return harness;
}

/** A v2 call through inject(). */
export async function call(
  h: Harness,
  method: 'GET' | 'POST',
  url: string,
  opts: { key?: string | null; body?: unknown; headers?: Record<string, string> } = {},
) {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.key !== null) headers['x-api-key'] = opts.key ?? h.keys.alice;
  const res = await h.app.inject({
    method,
    url,
    headers,
    ...(opts.body !== undefined ? { payload: opts.body as object } : {}),
  });
  return {
    status: res.statusCode,
    headers: res.headers,
    body: res.body ? (safeJson(res.body) as Record<string, any>) : undefined,
    raw: res.body,
  };
}

const safeJson = (s: string) => {
  try {
    return JSON.parse(s);
  } catch {
    return s;
  }
};

/** A ranked selection document over the drugs fixture. */
export function selectionDoc(smiles: string, limit = 5, extra: Record<string, unknown> = {}) {
  return {
    schema_version: 'molecule-selection/1',
    database: { database_id: 'drugs' },
    strategy: { type: 'ranked' },
    references: [{ id: 'q', structure: { format: 'smiles', value: smiles } }],
    objectives: [
      { type: 'similarity', direction: 'maximize', metric_id: 'rdkit.ecfp4_tanimoto', reference_id: 'q' },
    ],
    portfolio: { limit },
    ...extra,
  };
}
