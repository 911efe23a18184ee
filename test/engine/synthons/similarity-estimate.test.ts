// The estimate-first proposal (engine/synthons/similarity-estimate.ts) for weak-bound reactions
// (ring-closing and double-bond joins) of the AutoGrow4 × ZINC15 space: it proposes the tuples of
// largest separable gain, each with a proven bound at or above RDKit's exact score of its product,
// and its order finds a product query's close analogues first.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getRDKit, type RDKitModule } from '../../../engine/chem/rdkit.ts';
import { FP_BYTES, tanimoto } from '../../../engine/chem/fingerprint.ts';
import { assembleProduct } from '../../../engine/synthons/assemble.ts';
import { estimateCandidates } from '../../../engine/synthons/similarity-estimate.ts';
import { hasJoinEnvs } from '../../../engine/synthons/score-tuple.ts';
import { reactionTuples, tupleId, tupleSmiles, type OpenSpace } from '../../../engine/synthons/space.ts';
import { writeAutogrow4Sample } from './ag4-sample.ts';
import { builtSpace, morganOf } from './support/spaces.ts';

const WEAK = new Set([
  '37_Pictet_Spengler',
  '39_benzimidazole_derivatives_aldehyde',
  '51_1_2_4_triazole_acetohydrazide',
  '64_oxadiazole',
  '86_Wittig',
]);

let root: string;
let rd: RDKitModule;
let space: OpenSpace;
const reactions: number[] = [];
/** RDKit's fingerprint of every valid product, by product id. */
const products = new Map<string, { smiles: string; fp: Uint8Array }>();

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'estimate-'));
  rd = await getRDKit();
  const file = join(root, 'weak.txt');
  await writeAutogrow4Sample(file, { smallest: 2, spread: 20, reactions: (id) => WEAK.has(id) });
  space = await builtSpace(root, file, 'weak');
  space.reactions.forEach((_, r) => reactions.push(r));
  for (const r of reactions)
    for (const t of reactionTuples(space, r)) {
      const p = assembleProduct(rd, tupleSmiles(space, t), true);
      if (p?.fp) products.set(tupleId(space, t), { smiles: p.smiles, fp: p.fp });
    }
}, 600_000);
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const fpOf = (smiles: string): Uint8Array => morganOf(rd, smiles);

function popcount(bytes: Uint8Array): number {
  let n = 0;
  for (const b of bytes) for (let v = b; v; v &= v - 1) n++;
  return n;
}

/** Σ (3|Q ∩ F| − |F|) over a tuple's synthon fingerprints F, from the stored columns. */
function gain(q: Uint8Array, r: number, synthons: number[]): number {
  let g = 0;
  synthons.forEach((i, s) => {
    const f = space.reactions[r].slots[s].fps.subarray(i * FP_BYTES, (i + 1) * FP_BYTES);
    g += 3 * popcount(f.map((b, k) => b & q[k])) - popcount(f);
  });
  return g;
}

/** Product queries: every 97th product of the sample. */
function queries(): string[] {
  return [...products.values()].filter((_, k) => k % 97 === 0).map((p) => p.smiles);
}

describe('estimateCandidates on weak-bound AutoGrow4 reactions', () => {
  it('the sample holds only reactions without join environments', () => {
    expect(space.reactions.length).toBe(WEAK.size);
    for (const r of space.reactions) expect(hasJoinEnvs(r), r.info.id).toBe(false);
    expect(products.size).toBeGreaterThan(1_500);
  });

  it('proposes the `limit` tuples of largest gain, distinct, best estimate first', () => {
    const all = reactions.flatMap((r) => [...reactionTuples(space, r)]);
    for (const smiles of queries().slice(0, 4)) {
      const q = fpOf(smiles);
      const limit = 300;
      const got = estimateCandidates(space, q, reactions, limit);
      expect(got).toHaveLength(limit);
      const keys = new Set(got.map((c) => `${c.reaction}:${c.synthons.join(',')}`));
      expect(keys.size).toBe(limit);
      for (let i = 1; i < got.length; i++) expect(got[i].estimate).toBeLessThanOrEqual(got[i - 1].estimate);
      const least = Math.min(...got.map((c) => gain(q, c.reaction, c.synthons)));
      for (const t of all)
        if (!keys.has(`${t.reaction}:${t.synthons.join(',')}`))
          expect(gain(q, t.reaction, t.synthons)).toBeLessThanOrEqual(least);
    }
  });

  it("each bound is at least RDKit's score of the product; minBound drops the rest", () => {
    for (const smiles of queries().slice(0, 6)) {
      const q = fpOf(smiles);
      const got = estimateCandidates(space, q, reactions, 500);
      for (const c of got) {
        const p = products.get(tupleId(space, c));
        if (p) expect(c.bound + 1e-9).toBeGreaterThanOrEqual(tanimoto(q, p.fp));
      }
      const cut = estimateCandidates(space, q, reactions, 500, 0.9);
      expect(cut.length).toBeLessThan(got.length);
      for (const c of cut) expect(c.bound).toBeGreaterThanOrEqual(0.9 - 1e-9);
    }
  });

  it("finds a product query's top 10 within the first tenth of the products", () => {
    let found = 0;
    let wanted = 0;
    const tenth = Math.ceil(products.size / 10);
    for (const smiles of queries()) {
      const q = fpOf(smiles);
      const best = [...products.entries()]
        .map(([id, p]) => ({ id, sim: tanimoto(q, p.fp) }))
        .sort((x, y) => y.sim - x.sim);
      const kth = best[9].sim;
      const top = new Set(best.filter((b) => b.sim >= kth).map((b) => b.id));
      const first = new Set(estimateCandidates(space, q, reactions, tenth).map((c) => tupleId(space, c)));
      // The query itself (a product of the sample) is always among them.
      expect(best[0].sim).toBe(1);
      expect(first.has(best[0].id), smiles).toBe(true);
      wanted += top.size;
      for (const id of top) if (first.has(id)) found++;
    }
    expect(found / wanted).toBeGreaterThanOrEqual(0.9);
  });
});
