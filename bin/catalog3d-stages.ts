import { join } from 'node:path';
import { WorkflowExecutionAlreadyStartedError, type WorkflowClient } from '@temporalio/client';
import {
  ensureBundledCatalogs,
  openCatalog,
  readBundledList,
  type Catalog,
} from '../engine/catalog/index.ts';
import { createCatalog3dActivities } from '../activities/catalog3d.ts';
import { startWorkers, type RunningWorkers } from '../worker/worker.ts';
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
import type { Chem3dWorker } from '../platform/chem3d/process.ts';
import { startChem3dChild } from './chem3d.ts';

/** The catalog 3D stages `molsearch start` runs for bundled catalogs (docs/chem3d.md). */
export interface Catalog3dStages {
  /**
   * Called once the service is ready to serve: waits for the first pass up to START_WAIT_MS
   * (when this process runs a chem3d worker), then leaves it running; the `background` stages
   * start when the first pass is done (CATALOG_3D=all).
   */
  serve(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts the first pass as early as possible: builds the bundled catalogs marked `three_d:
 * "start"` (the 1,203 ChEMBL drugs, ~25 s) before any other, starts the Python chem3d worker and
 * a Node worker of its own for the stage (queues `<prefix>-stage3d-*`, since the service's workers
 * start only after every catalog is built and loaded: the ZINC sample alone takes minutes to
 * build), and starts their 3D stage, which then runs while the other catalogs are built.
 */
export async function startCatalog3dStages(opts: {
  config: Config;
  log: Logger;
  address: string;
  workflows: WorkflowClient;
  repoRoot: string;
  ensureCatalogs: boolean;
}): Promise<Catalog3dStages> {
  const { config, log } = opts;
  if (config.chem3d.stage === 'off') {
    // No background stages, but 3D queries still need their molecule embedded: the worker stays
    // (CHEM3D_WORKER=false is what turns it off), so catalogs already 3D-ready keep serving 3D.
    const chem3d = await startChem3dChild(config, log, opts.address);
    return { serve: async () => undefined, close: async () => void (await chem3d?.stop()) };
  }
  const bundled = await readBundledList(opts.repoRoot);
  const wanted = (mode: string) =>
    bundled
      .filter((b) => (b.three_d ?? 'off') === mode)
      .map((b) => b.id)
      .filter((id) => !config.catalogs.length || config.catalogs.includes(id));
  const firstIds = wanted('start');
  if (opts.ensureCatalogs && firstIds.length)
    await ensureBundledCatalogs({
      catalogDir: config.catalogDir,
      repoRoot: opts.repoRoot,
      log,
      threads: config.engineThreads,
      only: firstIds,
    });
  const chem3d: Chem3dWorker | undefined = await startChem3dChild(config, log, opts.address);
  const prefix = `${config.temporal.taskQueuePrefix}-stage3d`;
  // Started on first need: it bundles the workflows (seconds), not worth it when all is 3D-ready.
  let node: Promise<RunningWorkers> | undefined;
  const ctx: StageContext = {
    config,
    log,
    workflows: opts.workflows,
    prefix,
    node: () =>
      (node ??= startWorkers({
        address: opts.address,
        namespace: config.temporal.namespace,
        prefix,
        activities: createCatalog3dActivities({ log }),
        kinds: ['orchestration', 'scan'],
        schedules: false,
        log,
      })),
  };
  const firstPass = await Promise.all(
    (await withoutThreeD(config.catalogDir, firstIds)).map((c) => startStage(ctx, c, FIRST_PASS, true)),
  );
  const firstDone = Promise.allSettled(firstPass.map((s) => s.done));
  return {
    async serve() {
      if (config.chem3d.stage === 'all') {
        const ids = wanted('background');
        void firstDone
          .then(async () => {
            for (const c of await withoutThreeD(config.catalogDir, ids)) await startStage(ctx, c, {}, false);
          })
          .catch((err: unknown) => log.error({ err }, 'background 3D stages did not start'));
      }
      if (!chem3d || !firstPass.length) return;
      // Bounded: on a busy machine the small catalog may take longer; morgan is served meanwhile and
      // 3D requests on it answer a 4xx with its progress until it is ready.
      const waited = await Promise.race([
        firstDone.then(() => true),
        new Promise<false>((r) => setTimeout(() => r(false), START_WAIT_MS).unref()),
      ]);
      if (!waited)
        log.warn({ seconds: START_WAIT_MS / 1000 }, 'still embedding; serving meanwhile, 3D when ready');
    },
    async close() {
      await (await node)?.shutdown();
      await chem3d?.stop();
    },
  };
}

/** How long `molsearch start` waits for the first pass, once everything else is up. */
const START_WAIT_MS = 180_000;

/**
 * The first pass of a `start` catalog: 3 conformers per molecule (pruned at 0.5 Å) instead of 10,
 * about 3× faster to embed; the query keeps 10, so a pair still has up to 30 conformer pairs. The
 * accuracy benchmark against espsim (bench/shape/README.md) uses 3 conformers per molecule too.
 * Parts of 64 rows keep every lane busy to the end of a 1,203-row catalog.
 */
const FIRST_PASS: Partial<Catalog3dInput> = { confs: 3, partRows: 64 };

interface StageContext {
  config: Config;
  log: Logger;
  workflows: WorkflowClient;
  prefix: string;
  /** The Node worker of the stage queues, started on first use. */
  node(): Promise<RunningWorkers>;
}

/** The catalogs among `ids` that exist in `dir` and have no 3D data yet. */
async function withoutThreeD(dir: string, ids: string[]): Promise<Catalog[]> {
  const out: Catalog[] = [];
  for (const id of ids) {
    const c = await openCatalog(join(dir, id)).catch(() => undefined);
    if (c && !c.manifest.three_d) out.push(c);
  }
  return out;
}

/**
 * Starts (or joins: workflow id catalog3d-<id>) one catalog's 3D stage. With `watch`, progress is
 * logged every 15 s and `done` settles when it completes (logged either way); a background stage
 * runs for hours and is not watched (/health and /available_databases_full show its progress).
 */
async function startStage(
  ctx: StageContext,
  c: Catalog,
  params: Partial<Catalog3dInput>,
  watch: boolean,
): Promise<{ done: Promise<unknown> }> {
  const { config, log } = ctx;
  await ctx.node();
  const input: Catalog3dInput = {
    dir: c.dir,
    concurrency: config.chem3d.concurrency,
    ...params,
    queues: {
      node: taskQueue(ctx.prefix, 'scan'),
      chem3d: chem3dQueue(config.temporal.taskQueuePrefix, 'catalog'),
    },
  };
  const workflowId = chem3dWorkflowIds.catalog3d(c.manifest.id);
  const handle = await ctx.workflows
    .start(CHEM3D_WORKFLOWS.catalog3d, {
      taskQueue: taskQueue(ctx.prefix, 'orchestration'),
      workflowId,
      args: [input],
    })
    .catch((err: unknown) => {
      if (err instanceof WorkflowExecutionAlreadyStartedError) return ctx.workflows.getHandle(workflowId);
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
