import { resolve } from 'node:path';
import { WorkflowExecutionAlreadyStartedError, type WorkflowClient } from '@temporalio/client';
import { readBundledList, type Catalog } from '../engine/catalog/index.ts';
import type { SearchPool } from '../engine/search/index.ts';
import { createShapePool } from '../engine/shape/index.ts';
import { createQueryEmbedder } from '../api/services/query-embedder.ts';
import { createShapeSearch, type ShapeSearchService } from '../api/services/shape-search.ts';
import type { ThreeDStatusService } from '../api/services/three-d-status.ts';
import {
  CATALOG_3D_PROGRESS_QUERY,
  CHEM3D_WORKFLOWS,
  chem3dQueue,
  chem3dWorkflowIds,
  taskQueue,
  type Catalog3dInput,
  type Catalog3dProgress,
  type Catalog3dResult,
} from '../workflows/contracts.ts';
import type { Config } from '../platform/config.ts';
import type { Logger } from '../platform/logger.ts';
import { ensureChem3dPython, startChem3dWorker, type Chem3dWorker } from '../platform/chem3d/process.ts';

/**
 * Starts the Python 3D worker (chem3d/worker.py) beside the Node workers, when configured. A
 * failure is logged, not thrown: without it 3D requests answer 503 and `morgan` keeps working.
 */
export async function startChem3dChild(
  config: Config,
  log: Logger,
  address: string,
): Promise<Chem3dWorker | undefined> {
  if (!config.chem3d.worker) return undefined;
  try {
    const python = ensureChem3dPython({ toolsDir: config.toolsDir, log: (m) => log.info(m) });
    const worker = await startChem3dWorker({
      python,
      address,
      namespace: config.temporal.namespace,
      prefix: config.temporal.taskQueuePrefix,
      concurrency: config.chem3d.concurrency,
      logFile: resolve(config.dataDir, 'chem3d.log'),
    });
    log.info({ pid: worker.pid, concurrency: config.chem3d.concurrency }, 'chem3d worker started');
    return worker;
  } catch (err) {
    log.error({ err }, 'the chem3d worker did not start: 3D search types are unavailable');
    return undefined;
  }
}

/**
 * Starts the 3D stage of bundled catalogs without 3D data (workflow id catalog3d-<id>, so a
 * restart joins the running stage). Catalogs marked `three_d: "start"` in catalogs/bundled.json
 * (the small ChEMBL drugs set) go first and alone, as a quick first pass (FIRST_PASS), awaited
 * before the service answers when a chem3d worker runs; the `background` ones start only once
 * those are done, because they share the chem3d queue: started together, the 110,000 ZINC rows'
 * parts interleaved with the drugs' and the drugs took ~13 min instead of ~2 (CATALOG_3D=start
 * skips the background ones, off skips all).
 */
export async function startCatalog3dStages(opts: {
  config: Config;
  log: Logger;
  workflows: WorkflowClient;
  catalogs: Catalog[];
  repoRoot: string;
  await: boolean;
}): Promise<void> {
  const { config, log } = opts;
  if (config.chem3d.stage === 'off') return;
  const bundled = new Map((await readBundledList(opts.repoRoot)).map((b) => [b.id, b.three_d ?? 'off']));
  const todo = (mode: string) =>
    opts.catalogs.filter((c) => !c.manifest.three_d && (bundled.get(c.manifest.id) ?? 'off') === mode);
  const first = await Promise.all(todo('start').map((c) => startStage(opts, c, FIRST_PASS, true)));
  const firstDone = Promise.allSettled(first.map((s) => s.done));
  if (config.chem3d.stage === 'all') {
    const rest = todo('background');
    void firstDone
      .then(() => Promise.all(rest.map((c) => startStage(opts, c, {}, false))))
      .catch((err: unknown) => log.error({ err }, 'background 3D stages did not start'));
  }
  if (!opts.await || !first.length) return;
  // Bounded: on a busy machine the small catalog may take longer; morgan is served meanwhile and
  // 3D requests on it answer a 4xx with its progress until it is ready.
  const waited = await Promise.race([
    firstDone.then(() => true),
    new Promise<false>((r) => setTimeout(() => r(false), START_WAIT_MS).unref()),
  ]);
  if (!waited)
    log.warn({ seconds: START_WAIT_MS / 1000 }, 'still embedding; serving meanwhile, 3D when ready');
}

/**
 * The first pass of a `start` catalog: 3 conformers per molecule (pruned at 0.5 Å) instead of 10,
 * about 3× faster to embed; the query keeps 10, so a pair still has up to 30 conformer pairs. The
 * accuracy benchmark against espsim (bench/shape/README.md) uses 3 conformers per molecule too.
 * Parts of 64 rows keep both lanes busy to the end of a 1,203-row catalog.
 */
const FIRST_PASS: Partial<Catalog3dInput> = { confs: 3, partRows: 64 };

/**
 * Starts (or joins) one catalog's 3D stage. With `watch`, its progress is logged every 15 s and
 * `done` settles when it completes (logged either way); a background stage runs for hours and is
 * not watched (its progress is in /health and /available_databases_full).
 */
async function startStage(
  opts: { config: Config; log: Logger; workflows: WorkflowClient },
  c: Catalog,
  params: Partial<Catalog3dInput>,
  watch: boolean,
): Promise<{ done: Promise<unknown> }> {
  const { config, log } = opts;
  const input: Catalog3dInput = {
    dir: c.dir,
    concurrency: config.chem3d.concurrency,
    ...params,
    queues: {
      node: taskQueue(config.temporal.taskQueuePrefix, 'scan'),
      chem3d: chem3dQueue(config.temporal.taskQueuePrefix, 'catalog'),
    },
  };
  const workflowId = chem3dWorkflowIds.catalog3d(c.manifest.id);
  const handle = await opts.workflows
    .start(CHEM3D_WORKFLOWS.catalog3d, {
      taskQueue: taskQueue(config.temporal.taskQueuePrefix, 'orchestration'),
      workflowId,
      args: [input],
    })
    .catch((err: unknown) => {
      if (err instanceof WorkflowExecutionAlreadyStartedError) return opts.workflows.getHandle(workflowId);
      throw err;
    });
  log.info({ catalog: c.manifest.id, confs: input.confs ?? 10 }, 'catalog 3D stage started');
  if (!watch) return { done: Promise.resolve() };
  const t0 = Date.now();
  const timer = setInterval(() => {
    handle
      .query<Catalog3dProgress>(CATALOG_3D_PROGRESS_QUERY)
      .then((p) =>
        log.info({ catalog: c.manifest.id, done: p.moleculesDone, of: p.moleculesTotal }, '3D stage'),
      )
      .catch(() => undefined);
  }, 15_000);
  timer.unref();
  const done = handle
    .result()
    .then(
      (r: Catalog3dResult) =>
        log.info({ catalog: c.manifest.id, ...r, seconds: (Date.now() - t0) / 1000 }, 'catalog is 3D-ready'),
      (err: unknown) => log.error({ err, catalog: c.manifest.id }, 'catalog 3D stage failed'),
    )
    .finally(() => clearInterval(timer));
  return { done };
}

/** How long `molsearch start` waits for the `start` 3D stages before serving anyway. */
const START_WAIT_MS = 180_000;

/** The espsim search path: query embedder (chem3d worker), shape pool threads, the service. */
export function openShapeSearch(deps: {
  config: Config;
  catalogs: Catalog[];
  pool: SearchPool;
  workflows: WorkflowClient;
  threeD: ThreeDStatusService;
}): { service: ShapeSearchService; close(): Promise<void> } {
  const shapePool = createShapePool({ threads: Math.min(2, deps.config.engineThreads) });
  const embedder = createQueryEmbedder({
    workflows: deps.workflows,
    namespace: deps.config.temporal.namespace,
    prefix: deps.config.temporal.taskQueuePrefix,
  });
  const service = createShapeSearch({
    catalogs: deps.catalogs,
    pool: deps.pool,
    shapePool,
    embedder,
    threeD: deps.threeD,
  });
  return { service, close: () => shapePool.close() };
}
