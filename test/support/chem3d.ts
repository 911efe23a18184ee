import { resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
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
