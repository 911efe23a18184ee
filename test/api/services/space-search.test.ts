// uniqueSpaceHits: one row per product over rounds of the space search (real space pool thread,
// real RDKit, the two-route fixture space whose Tanimotos RDKit computed).
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
  it('asks again past repeated products and answers each molecule once at its best', async () => {
    const k = ref.best.size; // 5 molecules; two routes make the best one, so 5 tuples give 4
    const calls: number[] = [];
    const counting = {
      similarity: (s: string, q: Uint8Array, ask: number, ms?: number) => {
        calls.push(ask);
        return pool.similarity(s, q, ask, ms);
      },
    };
    const res = await uniqueSpaceHits(counting, 'two', fp, k, 20_000);
    expect(calls.length).toBe(2);
    expect(res.timedOut).toBe(false);
    expect(res.hits.map((h) => h.smiles).sort()).toEqual([...ref.best.keys()].sort());
    for (const h of res.hits) expect(h.similarity).toBeCloseTo(ref.best.get(h.smiles)!, 6);
  });

  it('keeps the proven hits of a complete round when the next round is cut by the budget', async () => {
    // A fake fault: a round cut short cannot be caused on demand on a six-tuple space, so the
    // second round's real answer is replaced by what a budget cut after one score looks like.
    const k = ref.best.size;
    let round = 0;
    const cutting = {
      similarity: async (s: string, q: Uint8Array, ask: number, ms?: number) => {
        const res = await pool.similarity(s, q, ask, ms);
        if (++round === 1) return res;
        return { ...res, hits: res.hits.slice(-1), timedOut: true, provenAbove: undefined };
      },
    };
    const first = await pool.similarity('two', fp, k, 20_000);
    const res = await uniqueSpaceHits(cutting, 'two', fp, k, 20_000);
    expect(res.timedOut).toBe(true);
    const distinct = [...new Set(first.hits.map((h) => h.smiles))];
    expect(distinct.length).toBe(k - 1);
    // The first round's molecules all stay, best first, each once.
    expect(res.hits.slice(0, distinct.length).map((h) => h.smiles)).toEqual(distinct);
    expect(new Set(res.hits.map((h) => h.smiles)).size).toBe(res.hits.length);
    expect(res.provenAbove).toBeCloseTo(first.hits.at(-1)!.similarity, 9);
  });
});
