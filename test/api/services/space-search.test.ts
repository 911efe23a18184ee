// uniqueSpaceHits: one row per product, from the space's thread (real space pool thread, real
// RDKit, the two-route fixture space whose Tanimotos RDKit computed).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getRDKit } from '../../../engine/chem/rdkit.ts';
import { createSpacePool, type SpacePool } from '../../../engine/synthons/space-pool.ts';
import { uniqueSpaceHits } from '../../../api/services/space-search.ts';
import { builtSpace, morganOf } from '../../engine/synthons/support/spaces.ts';
import { TWO_ROUTES, twoRoutesReference } from '../../engine/synthons/support/two-routes.ts';

let root: string;
let pool: SpacePool;
let ref: Awaited<ReturnType<typeof twoRoutesReference>>;
let fp: Uint8Array;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'space-search-'));
  await builtSpace(root, TWO_ROUTES, 'two');
  pool = createSpacePool({ dirs: [join(root, 'two')] });
  const rd = await getRDKit();
  ref = await twoRoutesReference(rd);
  fp = morganOf(rd, ref.query);
}, 120_000);
afterAll(async () => {
  await pool?.close();
  await rm(root, { recursive: true, force: true });
});

describe('uniqueSpaceHits', () => {
  it('answers each molecule once at its best, in one call to the space thread', async () => {
    const k = ref.best.size; // 5 molecules; two routes make the best one, so 5 tuples give 4
    const calls: Array<{ distinct?: boolean } | undefined> = [];
    const counting: Pick<SpacePool, 'similarity'> = {
      similarity: (s, q, ask, ms, opts) => {
        calls.push(opts);
        return pool.similarity(s, q, ask, ms, opts);
      },
    };
    const res = await uniqueSpaceHits(counting, 'two', fp, k, 20_000);
    expect(calls).toEqual([{ distinct: true }]);
    expect(res.timedOut).toBe(false);
    expect(res.hits.map((h) => h.smiles).sort()).toEqual([...ref.best.keys()].sort());
    for (const h of res.hits) expect(h.similarity).toBeCloseTo(ref.best.get(h.smiles)!, 6);
    // The tuple-level answer (runs' shortlists) still repeats the molecule two routes make.
    const tuples = await pool.similarity('two', fp, k, 20_000);
    expect(new Set(tuples.hits.map((h) => h.smiles)).size).toBe(k - 1);
  });
});
