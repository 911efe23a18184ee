// The join-environment bound (engine/synthons/join-walk.ts) keeps similarity search exact: on a
// sample of the AutoGrow4 × ZINC15 space (every reaction, joinable or ring-closing) and on the
// RDKit amide space, every product at or above the cutoff that brute force over RDKit-assembled
// products finds is found with the same score, and the top k equal brute force's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getRDKit, type RDKitModule } from '../../../engine/chem/rdkit.ts';
import { fpWords, popcountWords } from '../../../engine/synthons/bounds.ts';
import { tanimoto } from '../../../engine/chem/fingerprint.ts';
import { assembleProduct } from '../../../engine/synthons/assemble.ts';
import { joinable } from '../../../engine/synthons/join-bits.ts';
import { acrossCodes, nearCodes } from '../../../engine/synthons/join-env.ts';
import { orBound, slotJoinEnvs } from '../../../engine/synthons/join-walk.ts';
import { envAt } from '../../../engine/synthons/packed-envs.ts';
import { similaritySearch } from '../../../engine/synthons/similarity.ts';
import { similarityTopK } from '../../../engine/synthons/similarity-topk.ts';
import { reactionTuples, tupleId, tupleSmiles, type OpenSpace } from '../../../engine/synthons/space.ts';
import { writeAutogrow4Sample } from './ag4-sample.ts';
import { builtSpace, morganOf } from './support/spaces.ts';

let root: string;
let rd: RDKitModule;
let space: OpenSpace;
const products: Array<{ id: string; smiles: string; fp: Uint8Array }> = [];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'join-walk-'));
  rd = await getRDKit();
  const file = join(root, 'ag4.txt');
  await writeAutogrow4Sample(file, { smallest: 3, spread: 4 });
  space = await builtSpace(root, file, 'ag4');
  for (let r = 0; r < space.reactions.length; r++)
    for (const t of reactionTuples(space, r)) {
      const p = assembleProduct(rd, tupleSmiles(space, t), true);
      if (p?.fp) products.push({ id: tupleId(space, t), smiles: p.smiles, fp: p.fp });
    }
}, 600_000);
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const fpOf = (smiles: string): Uint8Array => morganOf(rd, smiles);

/** Products of the sample (every 397th) and two molecules from outside it. */
function queries(): string[] {
  const out = products.filter((_, k) => k % 397 === 0).map((p) => p.smiles);
  return [...out, 'CC(=O)Nc1ccc(O)cc1', 'O=C(NCc1ccccc1)c1ccncc1'];
}

describe('join walk on an AutoGrow4 sample', () => {
  it('has joinable and ring-closing reactions', () => {
    expect(space.reactions.filter((r) => joinable(r.info)).length).toBeGreaterThan(40);
    expect(space.reactions.filter((r) => r.info.ringForming).length).toBeGreaterThan(10);
    expect(products.length).toBeGreaterThan(2000);
  });

  it('bounds every product at or above its RDKit Tanimoto, the kept (A,1) codes in its fingerprint', () => {
    const fps = new Map(products.map((p) => [p.id, p.fp]));
    const has = (fp: Uint8Array, code: number): boolean => ((fp[(code % 2048) >> 3] >> (code % 8)) & 1) === 1;
    let [tuples, tighter] = [0, 0];
    for (const smiles of queries()) {
      const fq = fpOf(smiles);
      const q = fpWords(fq);
      const a = popcountWords(q);
      space.reactions.forEach((reaction, r) => {
        const envs = joinable(reaction.info) ? reaction.slots.map(slotJoinEnvs) : [];
        if (envs.length !== 2 || !envs[0] || !envs[1]) return;
        for (const t of reactionTuples(space, r)) {
          const fp = fps.get(tupleId(space, t));
          if (!fp) continue;
          const [i, j] = t.synthons;
          const [ea, eb] = [envAt(envs[0], i), envAt(envs[1], j)];
          const na = nearCodes(ea, eb.c0);
          const nb = nearCodes(eb, ea.c0);
          const across = acrossCodes(ea, eb, na[0], nb[0]);
          const [ownA, ownB] = [ea.nbrs.length > 0, eb.nbrs.length > 0];
          if (ownA) expect(has(fp, na[0]), `${t.synthons} (A,1)`).toBe(true);
          if (ownB) expect(has(fp, nb[0]), `${t.synthons} (B,1)`).toBe(true);
          const g = new Uint32Array(64);
          const args = [q, a, reaction.slots, i, j, na, nb, across, g] as const;
          const bound = orBound(...args, ownA, ownB);
          expect(bound + 1e-12, `${smiles} ${t.synthons}`).toBeGreaterThanOrEqual(tanimoto(fq, fp));
          if (bound < orBound(...args, false, false)) tighter++;
          tuples++;
        }
      });
    }
    expect(tuples).toBeGreaterThan(5000);
    expect(tighter).toBeGreaterThan(tuples / 10);
  });

  it('finds every product at or above 0.4 with its brute-force score', { timeout: 600_000 }, () => {
    let pruned = 0;
    for (const smiles of queries()) {
      const q = fpOf(smiles);
      const want = new Map<string, number>();
      for (const p of products) {
        const s = tanimoto(q, p.fp);
        if (s >= 0.4) want.set(p.id, s);
      }
      const res = similaritySearch(rd, space, q, { threshold: 0.4 });
      expect(res.timedOut).toBe(false);
      const got = new Map(res.hits.map((h) => [h.productId, h.similarity]));
      expect([...got.keys()].sort(), smiles).toEqual([...want.keys()].sort());
      for (const [id, s] of want) expect(got.get(id), `${smiles} ${id}`).toBeCloseTo(s, 9);
      pruned += products.length - res.counts.candidates;
    }
    expect(pruned).toBeGreaterThan(0);
  });

  it('top 25 equals brute force', { timeout: 600_000 }, () => {
    for (const smiles of queries().slice(0, 6)) {
      const q = fpOf(smiles);
      const scores = products.map((p) => tanimoto(q, p.fp)).sort((x, y) => y - x);
      const res = similarityTopK(rd, space, q, 25);
      expect(
        res.hits.map((h) => h.similarity.toFixed(9)),
        smiles,
      ).toEqual(scores.slice(0, res.hits.length).map((s) => s.toFixed(9)));
      if (scores[24] >= res.threshold) expect(res.hits.length).toBe(25);
    }
  });

  it(
    'top 25 under an ample budget (estimate stage, then both exact stages) equals brute force',
    {
      timeout: 600_000,
    },
    () => {
      for (const smiles of queries().slice(0, 6)) {
        const q = fpOf(smiles);
        const scores = products.map((p) => tanimoto(q, p.fp)).sort((x, y) => y - x);
        const res = similarityTopK(rd, space, q, 25, { timeoutMs: 600_000 });
        expect(res.timedOut, smiles).toBe(false);
        expect(
          res.hits.map((h) => h.similarity.toFixed(9)),
          smiles,
        ).toEqual(scores.slice(0, 25).map((s) => s.toFixed(9)));
      }
    },
  );
});
