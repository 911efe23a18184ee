import { resolve } from 'node:path';
import type { WorkflowClient } from '@temporalio/client';
import type { Catalog } from '../engine/catalog/index.ts';
import type { SearchPool } from '../engine/search/index.ts';
import { createShapePool } from '../engine/shape/index.ts';
import { createQueryEmbedder } from '../api/services/query-embedder.ts';
import { createShapeSearch, type ShapeSearchService } from '../api/services/shape-search.ts';
import type { CatalogFilters } from '../api/services/catalog-filters.ts';
import type { ThreeDStatusService } from '../api/services/three-d-status.ts';
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

/** The espsim search path: query embedder (chem3d worker), shape pool threads, the service. */
export function openShapeSearch(deps: {
  config: Config;
  catalogs: Catalog[];
  pool: SearchPool;
  workflows: WorkflowClient;
  threeD: ThreeDStatusService;
  /** The Morgan path's result filters, applied to 3D results alike. */
  filters: CatalogFilters;
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
    filters: deps.filters,
  });
  return { service, close: () => shapePool.close() };
}
