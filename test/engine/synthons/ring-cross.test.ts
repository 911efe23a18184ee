// The per-tuple ring-core bound (ring-cross.ts) against RDKit: for every product of the
// ring-closing and double-bond reactions of the Doebner-Miller test space and of an AutoGrow4
// sample, RDKit's fingerprint (assemble.ts: molzip, canonical SMILES, parse) holds both sides'
// free bits and has at most e_a + e_b bits outside free ∪ near; so the bound is at least RDKit's
// Tanimoto for any query, and it is tighter than the stored ring-core bound (ring-bound.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { getRDKit, type RDKitModule } from '../../../engine/chem/rdkit.ts';
import { FP_BYTES, tanimoto } from '../../../engine/chem/fingerprint.ts';
import { assembleProduct } from '../../../engine/synthons/assemble.ts';
import { fpWords, pickBound, popcountWords, columnWords } from '../../../engine/synthons/bounds.ts';
import {
  clearRingSides,
  crossBounder,
  nearBits,
  ringReaction,
  ringSidesUsed,
  sidePool,
  tupleSides,
} from '../../../engine/synthons/ring-cross.ts';
import { attachAt, attachTwoBits, keptAttach } from '../../../engine/synthons/ring-side-codes.ts';
import { makeRingSides } from '../../../engine/synthons/ring-sides-ahead.ts';
import { clearRingPairs } from '../../../engine/synthons/ring-zip.ts';
import { reactionTuples, tupleSmiles, type OpenSpace } from '../../../engine/synthons/space.ts';
import { builtSpace, morganOf, SPACE_SOURCES } from './support/spaces.ts';
import { RING_SAMPLE, writeAutogrow4Sample } from './ag4-sample.ts';

const QUERIES = [
  'CC(=O)Oc1ccccc1C(=O)O',
  'Cc1ccc2[nH]c(C)c(C)c2c1',
  'O=C(O)c1ccc2ccccc2n1',
  'c1ccc2ncccc2c1',
];
let root: string;
let rd: RDKitModule;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'ring-cross-'));
  rd = await getRDKit();
});
afterAll(async () => {
  clearRingPairs();
  clearRingSides();
  await rm(root, { recursive: true, force: true });
});

const space = (name: string, file: string): Promise<OpenSpace> => builtSpace(root, file, name);

const has = (row: Uint8Array | Uint32Array, bit: number): boolean =>
  row instanceof Uint32Array
    ? (row[bit >>> 5] & (1 << (bit & 31))) !== 0
    : (row[bit >>> 3] & (1 << (bit & 7))) !== 0;

/** Every valid product of the reactions with a stored pair table, against the sides and bounds. */
function check(sp: OpenSpace) {
  const out = { products: 0, sided: 0, tighter: 0, crossSum: 0, storedSum: 0, kept: 0, refined: 0 };
  const queries = QUERIES.map((s) => {
    const fp = morganOf(rd, s);
    return { fp, q: fpWords(fp), a: popcountWords(fpWords(fp)) };
  });
  sp.reactions.forEach((reaction, r) => {
    const ring = ringReaction(rd, reaction);
    if (!ring) return;
    const cols = reaction.slots.map((s) => columnWords(s.guaranteed));
    const bounders = queries.map(({ q, a }) => crossBounder(rd, reaction, q, a)!);
    for (const t of reactionTuples(sp, r)) {
      const p = assembleProduct(rd, tupleSmiles(sp, t), true);
      if (!p?.fp) continue;
      out.products++;
      const [i, j] = t.synthons;
      const sides = tupleSides(ring, i, j);
      if (!sides) continue;
      out.sided++;
      const [sa, sb] = sides;
      const pool = sidePool();
      const near: number[] = [];
      expect(nearBits(pool, sa, pool, sb, near)).toBe(true);
      const fromB = near.length;
      expect(nearBits(pool, sb, pool, sa, near)).toBe(true);
      // The (A, 1) bits of attachment atoms with a neighbour of their own are in the product.
      const [kA, kB] = [new Uint8Array(64), new Uint8Array(64)];
      const nA = keptAttach(pool, sa, kA);
      const nB = keptAttach(pool, sb, kB);
      for (let n = 0; n < nA + nB; n++) {
        if (!(n < nA ? kA[n] : kB[n - nA])) continue;
        const bit = near[n < nA ? n : fromB + n - nA];
        expect(has(p.fp, bit), `${p.smiles}: (A, 1) bit ${bit} the product lacks`).toBe(true);
        out.kept++;
      }
      const free = pool.slice(sa, sa + 64).map((v, k) => v | pool[sb + k]);
      let outside = 0;
      for (let bit = 0; bit < FP_BYTES * 8; bit++) {
        const inFree = has(free, bit);
        expect(!inFree || has(p.fp, bit), `${p.smiles}: free bit ${bit} the product lacks`).toBe(true);
        if (has(p.fp, bit) && !inFree && !near.includes(bit)) outside++;
      }
      expect(outside, `${p.smiles}: bits outside free ∪ near`).toBeLessThanOrEqual(
        pool[attachAt(pool, sa)] + pool[attachAt(pool, sb)],
      );
      // With the (A, 2) codes from both sides' radius-1 codes, no bit of the product is unknown.
      const [cA, cB] = [new Uint32Array(64), new Uint32Array(64)];
      const all: number[] = [];
      expect(nearBits(pool, sa, pool, sb, all, cA) && nearBits(pool, sb, pool, sa, all, cB)).toBe(true);
      expect(
        attachTwoBits(pool, sa, cA, pool, sb, cB, all) && attachTwoBits(pool, sb, cB, pool, sa, cA, all),
      ).toBe(true);
      for (let bit = 0; bit < FP_BYTES * 8; bit++)
        if (has(p.fp, bit) && !has(free, bit))
          expect(all.includes(bit), `${p.smiles}: bit ${bit} outside free, near and (A, 2)`).toBe(true);
      queries.forEach(({ fp, q, a }, n) => {
        // At t 0 the bound with the (A, 2) codes; past 1, the looser one without them.
        const bound = bounders[n](i, j, 0)!;
        const loose = bounders[n](i, j, 2)!;
        const sim = tanimoto(fp, p.fp!);
        expect(bound, `${p.smiles} against ${QUERIES[n]}`).toBeGreaterThanOrEqual(sim - 1e-12);
        expect(loose, `${p.smiles} against ${QUERIES[n]}`).toBeGreaterThanOrEqual(bound - 1e-12);
        if (loose > bound + 1e-9) out.refined++;
        const u = reaction.slots[0].unstableEnvs[i] + reaction.slots[1].unstableEnvs[j];
        const stored = pickBound(q, a, cols, Int32Array.of(i, j), u, new Uint32Array(64));
        out.crossSum += bound;
        out.storedSum += stored;
        if (bound < stored) out.tighter++;
      });
    }
  });
  return out;
}

describe('the per-tuple ring-core bound', () => {
  it('holds for every product of the Doebner-Miller test space', async () => {
    clearRingPairs();
    clearRingSides();
    const res = check(await space('dm', resolve(SPACE_SOURCES, 'doebner_miller_space.txt')));
    expect(res.products).toBe(12);
    expect(res.sided).toBe(12);
    expect(res.kept).toBeGreaterThan(12);
    expect(res.crossSum).toBeLessThan(res.storedSum);
  });

  it('keeps the looser bound while it cuts, and refines it once a lower threshold needs it', async () => {
    const sp = await space('dm-memo', resolve(SPACE_SOURCES, 'doebner_miller_space.txt'));
    const fp = morganOf(rd, QUERIES[3]);
    const [q, a] = [fpWords(fp), popcountWords(fpWords(fp))];
    let refined = 0;
    sp.reactions.forEach((reaction, r) => {
      if (!ringReaction(rd, reaction)) return;
      const memoised = crossBounder(rd, reaction, q, a, {})!;
      const fresh = crossBounder(rd, reaction, q, a)!;
      for (const t of reactionTuples(sp, r)) {
        const [i, j] = t.synthons;
        const [loose, exact] = [fresh(i, j, 2)!, fresh(i, j, 0)!];
        expect(memoised(i, j, 2)).toBe(loose);
        expect(memoised(i, j, 0)).toBe(exact);
        // Refined once, it stays refined.
        expect(memoised(i, j, 2)).toBe(exact);
        if (exact < loose) refined++;
      }
    });
    expect(refined).toBeGreaterThan(0);
  });

  it('holds when the pool of sides is cleared between the sides of a tuple', async () => {
    // Room for about two sides: nearly every new side clears the pool.
    clearRingSides(400);
    const res = check(await space('dm-small-pool', resolve(SPACE_SOURCES, 'doebner_miller_space.txt')));
    clearRingSides();
    expect(res.sided).toBe(12);
  });

  it('makes every side the tuples will meet ahead of them, a row at a time, and stops near a full pool', async () => {
    const sp = await space('dm-ahead', resolve(SPACE_SOURCES, 'doebner_miller_space.txt'));
    clearRingPairs();
    clearRingSides();
    let calls = 0;
    for (const reaction of sp.reactions)
      // No time at all: each call still makes one row, so the loop ends.
      for (let row = 0; row >= 0; calls++) row = makeRingSides(rd, reaction, row, 0);
    const made = ringSidesUsed();
    expect(made).toBeGreaterThan(0);
    expect(calls).toBeGreaterThan(sp.reactions.length);
    const res = check(sp);
    expect(res.sided).toBe(12);
    // The queries' bounds met only sides made before them.
    expect(ringSidesUsed()).toBe(made);
    // A pool that every side would fill past nine-tenths: once there, it makes nothing more.
    const limit = Math.ceil(made / 0.9) - 1;
    clearRingSides(limit);
    for (const reaction of sp.reactions) for (let row = 0; row >= 0;) row = makeRingSides(rd, reaction, row);
    const full = ringSidesUsed();
    expect(full).toBeGreaterThan(0.9 * limit);
    for (const reaction of sp.reactions) expect(makeRingSides(rd, reaction, 0)).toBe(-1);
    expect(ringSidesUsed()).toBe(full);
    clearRingSides();
  });

  it(
    'holds for every product of the AutoGrow4 sample (21 ring-closing reactions and the Wittig)',
    { timeout: 900_000 },
    async () => {
      const file = join(root, 'ag4.txt');
      await writeAutogrow4Sample(file, RING_SAMPLE);
      clearRingPairs();
      clearRingSides();
      const res = check(await space('ag4', file));
      expect(res.products).toBeGreaterThan(1_000);
      // Nearly every product has a stored state and so this bound, and it is much tighter.
      expect(res.sided).toBeGreaterThan(0.9 * res.products);
      expect(res.kept).toBeGreaterThan(res.sided);
      // The (A, 2) codes tighten the bound of many products.
      expect(res.refined).toBeGreaterThan(0.1 * res.sided * QUERIES.length);
      expect(res.tighter).toBeGreaterThan(0.5 * res.sided * QUERIES.length);
      expect(res.crossSum).toBeLessThan(0.8 * res.storedSum);
    },
  );
});
