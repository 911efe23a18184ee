// The k best distinct products (similarity-distinct.ts) on the two-route fixture space, checked
// against RDKit's products and Tanimotos (scripts/reference/make_two_routes_fixture.py).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getRDKit, type RDKitModule } from '../../../engine/chem/rdkit.ts';
import { distinctRounds, distinctTopK } from '../../../engine/synthons/similarity-distinct.ts';
import { similarityTopK } from '../../../engine/synthons/similarity-topk.ts';
import type { OpenSpace } from '../../../engine/synthons/space.ts';
import { builtSpace, morganOf } from './support/spaces.ts';
import { TWO_ROUTES, twoRoutesReference } from './support/two-routes.ts';

let root: string;
let rd: RDKitModule;
let space: OpenSpace;
let ref: Awaited<ReturnType<typeof twoRoutesReference>>;
let fp: Uint8Array;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'distinct-'));
  rd = await getRDKit();
  space = await builtSpace(root, TWO_ROUTES, 'two');
  ref = await twoRoutesReference(rd);
  fp = morganOf(rd, ref.query);
}, 120_000);
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('distinctTopK', () => {
  it('runs a second round past the repeated molecule, scoring no tuple twice', () => {
    const k = ref.best.size; // 5 molecules from 6 tuples; the best is made by two routes
    const scored = new Map<string, number | null>();
    const res = distinctTopK(rd, space, fp, k, { timeoutMs: 20_000, scored });
    expect(res.timedOut).toBe(false);
    expect(res.hits.map((h) => h.smiles).sort()).toEqual([...ref.best.keys()].sort());
    for (const h of res.hits) expect(h.similarity).toBeCloseTo(ref.best.get(h.smiles)!, 6);
    // Both rounds shared one score map: every tuple scored once, none more.
    expect(scored.size).toBe(ref.tuples);
  });

  it('keeps the proven hits of a complete round when the next round is cut by the budget', () => {
    // A fake fault: a round cut short cannot be caused on demand on a six-tuple space, so the
    // second round's real answer is replaced by what a budget cut after one score looks like.
    const k = ref.best.size;
    const first = similarityTopK(rd, space, fp, k);
    let round = 0;
    const res = distinctRounds((ask, ms) => {
      const r = similarityTopK(rd, space, fp, ask, { timeoutMs: ms });
      if (++round === 1) return r;
      return { ...r, hits: r.hits.slice(-1), timedOut: true, provenAbove: undefined };
    }, k);
    expect(round).toBe(2);
    expect(res.timedOut).toBe(true);
    const distinct = [...new Set(first.hits.map((h) => h.smiles))];
    expect(distinct.length).toBe(k - 1);
    // The first round's molecules all stay, best first, each once.
    expect(res.hits.slice(0, distinct.length).map((h) => h.smiles)).toEqual(distinct);
    expect(new Set(res.hits.map((h) => h.smiles)).size).toBe(res.hits.length);
    expect(res.provenAbove).toBeCloseTo(first.hits.at(-1)!.similarity, 9);
  });

  it('sums the time of its rounds', () => {
    let round = 0;
    const res = distinctRounds((ask, ms) => {
      const r = similarityTopK(rd, space, fp, ask, { timeoutMs: ms });
      round++;
      return { ...r, timingMs: { proposal: 10, assembly: 5 } };
    }, ref.best.size);
    expect(round).toBe(2);
    expect(res.timingMs).toEqual({ proposal: 20, assembly: 10 });
  });
});
