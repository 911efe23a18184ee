// The synthon job pool's lanes (real threads, real spaces): a long slice of a large space never
// holds up a small space's slice (user trial: an Idorsia job waited 13 minutes beside a job on
// the 10^9 default space, whose slices shared its one queue).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSynthonJobPool, type SynthonJobPool } from '../../../engine/synthons/job-pool.ts';
import type { SynthonJobSlice } from '../../../engine/synthons/job-search.ts';
import { builtSpace, IDORSIA_SOURCE, SPACE_SOURCES } from './support/spaces.ts';

let root: string;
let pool: SynthonJobPool;
let idorsia: string[];
let amide: string[];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'job-pool-'));
  idorsia = (await builtSpace(root, IDORSIA_SOURCE, 'idorsia')).reactions.map((r) => r.info.id);
  amide = (await builtSpace(root, join(SPACE_SOURCES, 'amide_space.txt'), 'amide')).reactions.map(
    (r) => r.info.id,
  );
  pool = createSynthonJobPool({ spaceDir: root });
}, 120_000);
afterAll(async () => {
  await pool?.close();
  await rm(root, { recursive: true, force: true });
});

const slice = (reactions: string[], over: Partial<SynthonJobSlice>): SynthonJobSlice => ({
  mode: 'substructure',
  query: 'C',
  reactions,
  k: 100_000,
  matchMode: 'fuzzy',
  ...over,
});

describe('synthon job pool lanes', () => {
  it('runs a small space slice while a long slice of a large space runs', { timeout: 120_000 }, async () => {
    // Warm both lanes' threads (RDKit loaded, spaces opened), as a running worker has them.
    await pool.run('amide', slice(amide, {}), undefined, 'small');
    await pool.run('idorsia', slice(idorsia, { maxHits: 10 }), undefined, 'large');
    const done: string[] = [];
    // Every product of the Idorsia space verified one by one, for up to 4 s.
    const long = pool
      .run('idorsia', slice(idorsia, { maxHits: 1_000_000, timeoutMs: 4_000 }), undefined, 'large')
      .then((r) => (done.push('long'), r));
    await new Promise((r) => setTimeout(r, 300));
    const t0 = performance.now();
    const quick = await pool.run('amide', slice(amide, { query: 'C(=O)N' }), undefined, 'small');
    const quickMs = performance.now() - t0;
    done.push('quick');
    expect(quick.hits.length).toBeGreaterThan(0);
    expect(done).toEqual(['quick']);
    // In one lane this waited for the whole long slice (4 s).
    expect(quickMs).toBeLessThan(2_500);
    expect((await long).timedOut).toBe(true);
  });
});
