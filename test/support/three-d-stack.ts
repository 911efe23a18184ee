import { inject } from 'vitest';
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { buildCatalog } from '../../engine/catalog/index.ts';
import {
  CHEM3D_WORKFLOWS,
  chem3dQueue,
  chem3dWorkflowIds,
  taskQueue,
  type Catalog3dInput,
} from '../../workflows/contracts.ts';
import type { Chem3dWorker } from '../../platform/chem3d/process.ts';
import { startTestChem3d } from './chem3d.ts';
import { stackEnv, startTestStack, tempDir, type TestStack } from '../workflows/support/stack.ts';

/** Approved drugs (SMILES, ChEMBL id) of the shared fixture. */
export const DRUGS = readFileSync(new URL('../fixtures/v2/chembl-drugs.smi', import.meta.url), 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => l.trim().split(/\s+/));
export const ASPIRIN = 'CC(=O)Oc1ccccc1C(=O)O';

export interface ThreeDStack {
  s: TestStack;
  /** The stack's directory: catalogs/ and data/. */
  root: string;
  py: Chem3dWorker;
  stop(): Promise<void>;
}

export interface ThreeDStackOptions {
  /** Rows of the 3D catalog (default: aspirin and the first `n3d` drugs). */
  rows3d?: string[][];
  /** The catalog left without 3D data (default: `flat`, the 10 drugs after the first `n3d`). */
  flat?: { id: string; rows: string[][] };
  /** Rows per shard (default 20, so the catalogs have several shards; null: the builder's). */
  shardRows?: number | null;
  /** Build the 3D catalog with its ADMET predictions (the shipped models; default false). */
  admet?: boolean;
}

async function catalog(root: string, id: string, rows: string[][], shardRows: number | null, admet = false) {
  const input = join(root, `${id}.tsv`);
  await writeFile(input, ['smiles\tid', ...rows.map((r) => r.join('\t'))].join('\n') + '\n');
  await buildCatalog({
    input,
    outDir: join(root, 'catalogs', id),
    id,
    name: id,
    smilesCol: 'smiles',
    idCol: 'id',
    delimiter: '\t',
    threads: 1,
    progress: false,
    ...(shardRows === null ? {} : { shardRows }),
    ...(admet ? { admet } : {}),
  });
}

/**
 * Real parts: the service stack (Temporal dev server, PGlite, in-process Node workers), the Python
 * chem3d worker, and two catalogs built by RDKit: `db3d` (aspirin + `n3d` drugs, made 3D-ready by
 * its real 3D stage, shards of 20 rows) and `flat` (10 other drugs, no 3D data). `db3d` is unique
 * per test file: the 3D stage's workflow id is derived from it on the shared Temporal server.
 */
export async function startThreeDStack(
  db3d: string,
  n3d: number,
  opts: ThreeDStackOptions = {},
): Promise<ThreeDStack> {
  const name = db3d;
  const root = await tempDir(name);
  const prefix = `${name}-${randomBytes(4).toString('hex')}`;
  const shardRows = opts.shardRows === undefined ? 20 : opts.shardRows;
  const flat = opts.flat ?? { id: 'flat', rows: DRUGS.slice(n3d, n3d + 10) };
  await catalog(
    root,
    db3d,
    opts.rows3d ?? [[ASPIRIN, 'ASPIRIN'], ...DRUGS.slice(0, n3d)],
    shardRows,
    opts.admet,
  );
  await catalog(root, flat.id, flat.rows, shardRows);
  const py = await startTestChem3d(inject('temporalAddress'), prefix);
  const s = await startTestStack(
    stackEnv(join(root, 'data'), join(root, 'catalogs'), inject('temporalAddress'), prefix),
  );
  const connection = await Connection.connect({ address: inject('temporalAddress') });
  await new Client({ connection }).workflow.execute(CHEM3D_WORKFLOWS.catalog3d, {
    taskQueue: taskQueue(prefix, 'orchestration'),
    workflowId: chem3dWorkflowIds.catalog3d(db3d),
    args: [
      {
        dir: join(root, 'catalogs', db3d),
        queues: { node: taskQueue(prefix, 'scan'), chem3d: chem3dQueue(prefix, 'catalog') },
      } satisfies Catalog3dInput,
    ],
  });
  await connection.close();
  return {
    s,
    root,
    py,
    async stop() {
      await py.stop();
      await s.stack.stop();
    },
  };
}
