import { resolve } from 'node:path';
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
