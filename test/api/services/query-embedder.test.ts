import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkflowClient } from '@temporalio/client';
import { DomainError } from '../../../platform/errors.ts';
import { createQueryEmbedder } from '../../../api/services/query-embedder.ts';
import { startChem3dStack, type Chem3dStack } from '../../support/chem3d.ts';

// Real parts: the shared Temporal dev server, the Python chem3d worker, the Node orchestration
// worker running embedQueryWorkflow. The only addition is a count of the workflows started.
let stack: Chem3dStack;
let started = 0;

/** The real workflow client, counting `execute` calls (one per embedding on the worker). */
function countingClient(): WorkflowClient {
  const real = stack.client.workflow;
  const counting = Object.create(real) as WorkflowClient;
  counting.execute = ((...args: Parameters<WorkflowClient['execute']>) => {
    started++;
    return real.execute(...args);
  }) as WorkflowClient['execute'];
  return counting;
}

const embedder = (cacheEntries?: number, embedBudgetSeconds?: number) =>
  createQueryEmbedder({
    workflows: countingClient(),
    namespace: 'default',
    prefix: stack.prefix,
    cacheEntries,
    embedBudgetSeconds,
  });

/** Cyclosporin A: 85 heavy atoms (under the 100 limit), a flexible macrocycle, seconds to embed. */
const CYCLOSPORIN =
  'CC[C@H]1C(=O)N(CC(=O)N([C@H](C(=O)N[C@H](C(=O)N([C@H](C(=O)N[C@H](C(=O)N[C@@H](C(=O)N([C@H](C(=O)N([C@H](C(=O)N([C@H](C(=O)N([C@H](C(=O)N1)[C@@H]([C@H](C)C/C=C/C)O)C)C(C)C)C)CC(C)C)C)CC(C)C)C)C)C)CC(C)C)C)C(C)C)CC(C)C)C)C';

/** The 422 `embed` throws for `smiles`, asserted to name search_input; its message. */
async function rejection(e: ReturnType<typeof embedder>, smiles: string): Promise<string> {
  const err = await e.embed(smiles).catch((x: unknown) => x);
  expect(err).toBeInstanceOf(DomainError);
  expect((err as DomainError).code).toBe('validation_error');
  expect((err as DomainError).issues[0].loc).toEqual(['query', 'search_input']);
  return (err as DomainError).issues[0].msg;
}

beforeAll(async () => {
  stack = await startChem3dStack('qemb');
}, 300_000);

afterAll(() => stack?.stop());

describe('query embedder: cache of query embeddings', () => {
  it('embeds a repeated query once and answers the same conformers from the cache', async () => {
    const e = embedder();
    started = 0;
    const first = await e.embed('CC(=O)Oc1ccccc1C(=O)O');
    const second = await e.embed('CC(=O)Oc1ccccc1C(=O)O');
    expect(started).toBe(1);
    expect(second.confCount).toBe(first.confCount);
    expect(Array.from(second.coords)).toEqual(Array.from(first.coords));
    // Another spelling of the same molecule is another key (ETKDG's result depends on atom order).
    await e.embed('OC(=O)c1ccccc1OC(C)=O');
    expect(started).toBe(2);
  });

  it('shares one embedding between concurrent requests for the same SMILES', async () => {
    const e = embedder();
    started = 0;
    const all = await Promise.all([0, 1, 2].map(() => e.embed('c1ccc2ccccc2c1O')));
    expect(started).toBe(1);
    for (const m of all) expect(m.confCount).toBe(all[0].confCount);
  });

  it('keeps an unembeddable query: the same 422 naming the caller’s field, embedded once', async () => {
    const e = embedder();
    started = 0;
    for (const loc of [
      ['query', 'search_input'],
      ['body', 'query_smiles'],
    ]) {
      const err = await e.embed('C'.repeat(130), loc).catch((x: unknown) => x);
      expect(err).toBeInstanceOf(DomainError);
      expect((err as DomainError).code).toBe('validation_error');
      expect((err as DomainError).issues[0].loc).toEqual(loc);
      expect((err as DomainError).issues[0].msg).toMatch(/too large for 3D: 130 heavy atoms/);
    }
    expect(started).toBe(1);
  });

  it('evicts the least recently used query beyond its capacity', async () => {
    const e = embedder(2);
    started = 0;
    await e.embed('CCO');
    await e.embed('CCN');
    await e.embed('CCO'); // CCO is now the most recent: CCN goes first
    await e.embed('CCC');
    expect(started).toBe(3);
    await e.embed('CCO');
    expect(started).toBe(3);
    await e.embed('CCN');
    expect(started).toBe(4);
  });

  it('is a 422 naming search_input, not a 503, when the worker took the query but could not embed it in time', async () => {
    // An embedding budget far below cyclosporin's embedding time: the worker answers the timeout itself.
    const e = embedder(undefined, 0.05);
    started = 0;
    const msg = await rejection(e, CYCLOSPORIN);
    expect(msg).toMatch(/could not be embedded in 3D within 0\.05 s \(85 heavy atoms, 15 rotatable bonds\)/);
    // Not kept: on a less busy worker the same query may embed, so the next request tries again.
    await rejection(e, CYCLOSPORIN);
    expect(started).toBe(2);
  }, 60_000);

  it('rejects a query element with no shape radius or Gasteiger charge, naming the element', async () => {
    const e = embedder();
    expect(await rejection(e, '[U]')).toMatch(/element\(s\) U not supported in 3D/);
    expect(await rejection(e, 'C[Se]c1ccccc1')).toMatch(/element\(s\) Se not supported in 3D/);
    // A counter-ion is not embedded (largest fragment), so it does not make a salt unsupported.
    expect((await e.embed('CC(=O)[O-].[Na+]')).atomCount).toBe(7);
  });

  it('rejects a query of monatomic ions only: nothing 3D to compare', async () => {
    const e = embedder();
    expect(await rejection(e, '[K+].[Cl-]')).toMatch(/only monatomic ions \(\[K\+\], \[Cl-\]\)/);
    expect(await rejection(e, '[Na+]')).toMatch(/only monatomic ions/);
  });

  it('answers a cached query with the worker down; an uncached one is a 503 (unavailable)', async () => {
    const e = embedder();
    const m = await e.embed('CCOC(=O)C');
    await stack.py.stop();
    started = 0;
    expect((await e.embed('CCOC(=O)C')).confCount).toBe(m.confCount);
    expect(started).toBe(0);
    const err = await e.embed('CCCCOC').catch((x: unknown) => x);
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).code).toBe('unavailable');
    expect((err as DomainError).retryAfterSeconds).toBeGreaterThan(0);
  }, 60_000);
});
