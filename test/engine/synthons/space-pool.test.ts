// The space pool's lanes: a long search of a large space never holds up a small space's request,
// and long searches never take every thread (real threads, real spaces).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getRDKit } from '../../../engine/chem/rdkit.ts';
import { createSpacePool, type SpacePool } from '../../../engine/synthons/space-pool.ts';
import { builtSpace, IDORSIA_SOURCE, morganOf, SPACE_SOURCES } from './support/spaces.ts';

let root: string;
let pool: SpacePool;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'space-pool-'));
  await builtSpace(root, IDORSIA_SOURCE, 'idorsia');
  await builtSpace(root, join(SPACE_SOURCES, 'amide_space.txt'), 'amide');
  // The Idorsia toy space (29,200 products) counts as large here.
  pool = createSpacePool({ dirs: [join(root, 'idorsia'), join(root, 'amide')], largeProducts: 10_000 });
}, 300_000);
afterAll(async () => {
  await pool?.close();
  await rm(root, { recursive: true, force: true });
});

describe('space pool lanes', () => {
  it('answers a small space while a long search of a large space runs', { timeout: 120_000 }, async () => {
    // The quick lane's thread and space open first, so that the time below is the request's alone
    // (under CI load, starting a thread and loading RDKit took seconds of its own).
    expect((await pool.sample('amide', 1, 9)).products.length).toBe(1);
    // 'C' is in nearly every product: the search verifies products until its 6 s deadline.
    const done: string[] = [];
    const long = pool
      .substructure('idorsia', 'C', { maxHits: 100_000, maxProducts: 100_000, timeoutMs: 6_000 })
      .then((r) => (done.push('long'), r));
    await new Promise((r) => setTimeout(r, 300));
    const t0 = performance.now();
    const sample = await pool.sample('amide', 5, 1);
    const quickMs = performance.now() - t0;
    done.push('quick');
    expect(sample.products.length).toBe(5);
    expect(done).toEqual(['quick']);
    // With one thread for everything this waited for the whole long search (6 s).
    expect(quickMs).toBeLessThan(4_000);
    expect((await long).timedOut).toBe(true);
  });

  it(
    'runs long searches on all threads but one: a second waits for the first',
    { timeout: 120_000 },
    async () => {
      const rd = await getRDKit();
      const done: string[] = [];
      const first = pool
        .substructure('idorsia', 'C', { maxHits: 100_000, maxProducts: 100_000, timeoutMs: 2_000 })
        .then(() => done.push('first'));
      await new Promise((r) => setTimeout(r, 100));
      const second = pool
        .similarity('idorsia', morganOf(rd, 'CC(=O)Nc1ccccc1'), 5)
        .then((r) => (done.push('second'), r));
      // The quick lane stays free meanwhile.
      expect((await pool.sample('amide', 3, 2)).products.length).toBe(3);
      expect(done).toEqual([]);
      const [, res] = await Promise.all([first, second]);
      expect(done).toEqual(['first', 'second']);
      expect(res.hits.length).toBe(5);
    },
  );
});
