import { inject } from 'vitest';
import { resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { createLogger } from '../../platform/logger.ts';
import { startWorkers, type RunningWorkers } from '../../worker/worker.ts';
import { moleculeFromBase64 } from '../../engine/catalog/three-d-schema.ts';
import type { ConformerSet } from '../../engine/shape/index.ts';
import {
  CHEM3D_WORKFLOWS,
  chem3dQueue,
  taskQueue,
  type EmbedQueryResult,
  type EmbedQueryWorkflowInput,
} from '../../workflows/contracts.ts';
import { ensureChem3dPython, startChem3dWorker, type Chem3dWorker } from '../../platform/chem3d/process.ts';

/** The project's chem3d venv (installed on first use, as the start command does). */
export function chem3dPython(): string {
  return ensureChem3dPython({ toolsDir: resolve('.tools'), log: (m) => console.log(m) });
}

/** A real Python chem3d worker on the shared Temporal dev server, polling `prefix`'s queues. */
export function startTestChem3d(address: string, prefix: string): Promise<Chem3dWorker> {
  return startChem3dWorker({ python: chem3dPython(), address, namespace: 'default', prefix });
}

/** A prefix's chem3d worker, Node orchestration worker and client (startChem3dStack). */
export interface Chem3dStack {
  prefix: string;
  /** The Python worker (a test may stop it to see what callers get without one). */
  py: Chem3dWorker;
  node: RunningWorkers;
  client: Client;
  stop(): Promise<void>;
}

/**
 * What the query-embedding tests run against, under a fresh `<name>-<hex>` prefix on the shared
 * Temporal dev server: the real Python chem3d worker, the Node orchestration worker (the embed
 * workflows, no activities) and a client. `stop` stops what started, also after a partial start.
 */
export async function startChem3dStack(name: string): Promise<Chem3dStack> {
  const address = inject('temporalAddress');
  const prefix = `${name}-${randomBytes(4).toString('hex')}`;
  let py: Chem3dWorker | undefined;
  let node: RunningWorkers | undefined;
  let connection: Connection | undefined;
  const stop = async () => {
    await py?.stop();
    await node?.shutdown();
    await connection?.close();
  };
  try {
    py = await startTestChem3d(address, prefix);
    node = await startWorkers({
      address,
      namespace: 'default',
      prefix,
      activities: {},
      kinds: ['orchestration'],
      log: createLogger({ level: 'warn', pretty: false }),
    });
    connection = await Connection.connect({ address });
    return { prefix, py, node, client: new Client({ connection }), stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/**
 * `smiles` embedded by the real chem3d worker of `prefix` (its query queue, the recipe of catalogs,
 * queries and synthon products: `confs` conformers, default 10, seed 42), as a test's own
 * reference; null when the worker cannot embed it.
 */
export async function embedSmiles(
  address: string,
  prefix: string,
  smiles: string,
  confs = 10,
): Promise<ConformerSet | null> {
  const connection = await Connection.connect({ address });
  try {
    const res = (await new Client({ connection }).workflow.execute(CHEM3D_WORKFLOWS.embedQuery, {
      taskQueue: taskQueue(prefix, 'orchestration'),
      workflowId: `test-embed-${randomBytes(6).toString('hex')}`,
      args: [
        { smiles, queue: chem3dQueue(prefix, 'query'), deadlineMs: 60_000, confs, seed: 42 },
      ] satisfies EmbedQueryWorkflowInput[],
    })) as EmbedQueryResult;
    return res.molecule.ok ? moleculeFromBase64(res.molecule) : null;
  } finally {
    await connection.close();
  }
}
