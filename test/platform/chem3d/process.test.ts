import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { WorkflowFailedError } from '@temporalio/client';
import { TimeoutFailure, TimeoutType } from '@temporalio/common';
import { moleculeFromBase64 } from '../../../engine/catalog/three-d-schema.ts';
import {
  CHEM3D_WORKFLOWS,
  chem3dQueue,
  taskQueue,
  type EmbedQueryResult,
  type EmbedQueryWorkflowInput,
} from '../../../workflows/contracts.ts';
import { startChem3dStack, type Chem3dStack } from '../../support/chem3d.ts';

// Real parts: the shared Temporal dev server, the Python chem3d worker (RDKit from PyPI) as a
// child process, the Node orchestration worker running embedQueryWorkflow.
interface RefMolecule {
  smiles: string;
  atomCount: number;
  confCount: number;
  elements: number[];
  charges: number[];
  coords: number[];
}
const REF = JSON.parse(
  readFileSync(new URL('../../fixtures/chem3d-reference.json', import.meta.url), 'utf8'),
) as { molecules: RefMolecule[] };

let stack: Chem3dStack;

beforeAll(async () => {
  stack = await startChem3dStack('chem3d');
}, 300_000);

afterAll(() => stack?.stop());

const embed = (smiles: string, deadlineMs = 30_000) =>
  stack.client.workflow.execute(CHEM3D_WORKFLOWS.embedQuery, {
    taskQueue: taskQueue(stack.prefix, 'orchestration'),
    workflowId: `embed-${randomBytes(6).toString('hex')}`,
    args: [
      { smiles, queue: chem3dQueue(stack.prefix, 'query'), deadlineMs } satisfies EmbedQueryWorkflowInput,
    ],
  }) as Promise<EmbedQueryResult>;

describe('chem3d worker: query embedding', () => {
  it('gives the coordinates and charges Python RDKit gives for the same seed', async () => {
    for (const ref of REF.molecules) {
      const res = await embed(ref.smiles);
      expect(res.molecule.ok, ref.smiles).toBe(true);
      if (!res.molecule.ok) continue;
      const m = moleculeFromBase64(res.molecule);
      expect([m.atomCount, m.confCount], ref.smiles).toEqual([ref.atomCount, ref.confCount]);
      expect(Array.from(m.elements)).toEqual(ref.elements);
      let maxCharge = 0;
      ref.charges.forEach((q, i) => (maxCharge = Math.max(maxCharge, Math.abs(q - m.charges[i]))));
      let maxCoord = 0;
      ref.coords.forEach((x, i) => (maxCoord = Math.max(maxCoord, Math.abs(x - m.coords[i]))));
      // Same RDKit, same seed, same thread count: identical float32 values are expected.
      expect(maxCharge, ref.smiles).toBeLessThan(1e-6);
      expect(maxCoord, ref.smiles).toBeLessThan(1e-4);
    }
  });

  it('reports why a query cannot be embedded instead of failing', async () => {
    const cases: [string, RegExp][] = [
      ['C1CC', /unparsable/],
      ['C'.repeat(150), /too large for 3D: 150 heavy atoms/],
      ['CC[Se]C', /element\(s\) Se not supported in 3D \(no shape radius or Gasteiger charge/],
    ];
    for (const [smiles, reason] of cases) {
      const res = await embed(smiles);
      expect(res.molecule.ok).toBe(false);
      if (!res.molecule.ok) expect(res.molecule.reason).toMatch(reason);
    }
  });

  it('fails fast when no chem3d worker polls the query queue', async () => {
    await stack.py.stop();
    expect(stack.py.exited()).toBe(true);
    const t0 = Date.now();
    const err = await embed('CCO', 4000).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorkflowFailedError);
    // The activity was never picked up: a schedule-to-start timeout, not a hang.
    const cause = (err as WorkflowFailedError).cause?.cause;
    expect(cause).toBeInstanceOf(TimeoutFailure);
    expect((cause as TimeoutFailure).timeoutType).toBe(TimeoutType.SCHEDULE_TO_START);
    expect(Date.now() - t0).toBeLessThan(10_000);
  });
});
