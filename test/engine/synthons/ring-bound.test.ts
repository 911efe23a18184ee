// The ring-core bound (ring-bound.ts), as the build stores it in the guaranteed and unstable
// columns, against RDKit: for every product of the ring-closing and double-bond reactions of the
// test spaces and of an AutoGrow4 sample, RDKit's fingerprint (assemble.ts: molzip, canonical
// SMILES, parse) holds both synthons' G'' and has at most U''_a + U''_b bits outside them, and
// the bound is tighter than bounds.ts's own (G, U) of the synthons (synthon-chem.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { getRDKit, type RDKitModule } from '../../../engine/chem/rdkit.ts';
import { FP_BYTES } from '../../../engine/chem/fingerprint.ts';
import { buildSpace } from '../../../engine/synthons/build-space.ts';
import { assembleProduct } from '../../../engine/synthons/assemble.ts';
import { ringBounds } from '../../../engine/synthons/ring-bound.ts';
import { synthonChemistry, type SynthonChem } from '../../../engine/synthons/synthon-chem.ts';
import { clearRingPairs } from '../../../engine/synthons/ring-zip.ts';
import { hasJoinEnvs } from '../../../engine/synthons/score-tuple.ts';
import { openSpace, reactionTuples, tupleSmiles, type OpenSpace } from '../../../engine/synthons/space.ts';
import { RING_SAMPLE, writeAutogrow4Sample } from './ag4-sample.ts';

const SOURCES = new URL('../../../catalogs/spaces/sources/', import.meta.url).pathname;
let root: string;
let rd: RDKitModule;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'ring-bound-'));
  rd = await getRDKit();
});
afterAll(async () => {
  clearRingPairs();
  await rm(root, { recursive: true, force: true });
});

async function space(name: string, file: string): Promise<OpenSpace> {
  const out = join(root, name);
  await buildSpace({ input: file, out, id: name });
  return openSpace(out);
}

const bitCount = (row: Uint8Array): number => {
  let n = 0;
  for (const v of row) for (let x = v; x; x &= x - 1) n++;
  return n;
};

/** Every valid product of every weak-bound reaction against its bound; the totals of both bounds. */
function check(sp: OpenSpace) {
  const out = { products: 0, tighter: 0, oldU: 0, newU: 0, oldG: 0, newG: 0 };
  sp.reactions.forEach((reaction, r) => {
    if (hasJoinEnvs(reaction)) return;
    const bounds = reaction.slots.map((s) => ({ guaranteed: s.guaranteed, unstable: s.unstableEnvs }));
    const own = reaction.slots.map((s) =>
      s.smiles.map((smiles) => synthonChemistry(rd, smiles, reaction.info.ringForming, false) as SynthonChem),
    );
    for (const t of reactionTuples(sp, r)) {
      const p = assembleProduct(rd, tupleSmiles(sp, t), true);
      if (!p?.fp) continue;
      const rows = t.synthons.map((i, s) => bounds[s].guaranteed.subarray(i * FP_BYTES, (i + 1) * FP_BYTES));
      const union = new Uint8Array(FP_BYTES);
      for (const row of rows) for (let k = 0; k < FP_BYTES; k++) union[k] |= row[k];
      const missing = new Uint8Array(FP_BYTES);
      const outside = new Uint8Array(FP_BYTES);
      for (let k = 0; k < FP_BYTES; k++) {
        missing[k] = union[k] & ~p.fp[k];
        outside[k] = p.fp[k] & ~union[k];
      }
      const u = t.synthons.reduce((sum, i, s) => sum + bounds[s].unstable[i], 0);
      expect(bitCount(missing), `${p.smiles}: G'' bits the product lacks`).toBe(0);
      expect(bitCount(outside), `${p.smiles}: bits outside G''`).toBeLessThanOrEqual(u);
      const oldU = t.synthons.reduce((sum, i, s) => sum + own[s][i].unstableEnvs, 0);
      out.products++;
      out.oldU += oldU;
      out.newU += u;
      if (u < oldU) out.tighter++;
      out.newG += bitCount(union);
      for (let k = 0; k < FP_BYTES; k++) union[k] = 0;
      for (const [s, i] of t.synthons.entries())
        for (let k = 0; k < FP_BYTES; k++) union[k] |= own[s][i].guaranteed[k];
      out.oldG += bitCount(union);
    }
  });
  return out;
}

describe('the ring-core bound', () => {
  it('holds for every product of the Doebner-Miller test space', async () => {
    clearRingPairs();
    const res = check(await space('dm', resolve(SOURCES, 'doebner_miller_space.txt')));
    expect(res.products).toBe(12);
    expect(res.newU).toBeLessThan(res.oldU);
  });

  it('reports its progress as rising fractions of its work, up to 1', async () => {
    const sp = await space('dm-progress', resolve(SOURCES, 'doebner_miller_space.txt'));
    const seen: number[] = [];
    const pairs = new Set<number>();
    const r = sp.reactions[0];
    const onProgress = (f: number, n: number) => (seen.push(f), pairs.add(n));
    expect(ringBounds(rd, r.info.ringForming, r.slots, onProgress)).toBeDefined();
    // One count of pairs of cores, at most one per pair of synthons.
    expect(pairs.size).toBe(1);
    const [n] = pairs;
    expect(n).toBeGreaterThan(0);
    expect(n).toBeLessThanOrEqual(r.slots[0].synthonIds.length * r.slots[1].synthonIds.length);
    expect(seen.length).toBeGreaterThan(1);
    expect(seen[0]).toBe(0);
    for (let i = 1; i < seen.length; i++) expect(seen[i]).toBeGreaterThanOrEqual(seen[i - 1]);
    expect(seen[seen.length - 1]).toBeLessThanOrEqual(1);
    expect(seen.some((f) => f >= 0.8)).toBe(true);
  });

  it('leaves reactions of three or more slots to bounds.ts (the triazole test space)', async () => {
    const sp = await space('triazole', resolve(SOURCES, 'triazole_space.txt'));
    for (const r of sp.reactions) expect(ringBounds(rd, r.info.ringForming, r.slots)).toBeUndefined();
  });

  it(
    'holds for every product of the AutoGrow4 sample (21 ring-closing reactions and the Wittig)',
    { timeout: 900_000 },
    async () => {
      const file = join(root, 'ag4.txt');
      await writeAutogrow4Sample(file, RING_SAMPLE);
      clearRingPairs();
      const res = check(await space('ag4', file));
      expect(res.products).toBeGreaterThan(1_000);
      // Most products get a smaller U and a larger G than bounds.ts's.
      expect(res.tighter).toBeGreaterThan(res.products / 2);
      expect(res.newU).toBeLessThan(res.oldU / 2);
      expect(res.newG).toBeGreaterThan(res.oldG);
    },
  );
});
