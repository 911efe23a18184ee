// The slot-by-slot walk (engine/synthons/tuple-walk.ts): its cheap cuts lose no tuple whose OR
// bound reaches the threshold, checked against every tuple of real reactions.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MORGAN_DETAILS } from '../../../engine/chem/fingerprint.ts';
import { getRDKit, type RDKitModule } from '../../../engine/chem/rdkit.ts';
import {
  columnWords,
  FOLD_WORDS,
  fpWords,
  pickBound,
  pop32,
  popcountWords,
  slotTerms,
} from '../../../engine/synthons/bounds.ts';
import { buildSpace } from '../../../engine/synthons/build-space.ts';
import { pairEntry, PAIR_INVALID, ringPairsOf } from '../../../engine/synthons/ring-pairs.ts';
import { openSpace, reactionTuples, type OpenSpace } from '../../../engine/synthons/space.ts';
import { tupleWalk } from '../../../engine/synthons/tuple-walk.ts';
import { dMax, maskGroups } from '../../../engine/synthons/pair-walk.ts';
import { writeAutogrow4Sample } from './ag4-sample.ts';

const SOURCES = new URL('../../../catalogs/spaces/sources/', import.meta.url).pathname;
let root: string;
let rd: RDKitModule;
let ag4: OpenSpace;
let triazole: OpenSpace;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'tuple-walk-'));
  rd = await getRDKit();
  const file = join(root, 'ag4.txt');
  await writeAutogrow4Sample(file, {
    smallest: 2,
    spread: 6,
    reactions: (id) => /^(59_|60_|63_|86_)/.test(id),
  });
  await buildSpace({ input: file, out: join(root, 'ag4'), id: 'ag4' });
  ag4 = await openSpace(join(root, 'ag4'));
  await buildSpace({ input: resolve(SOURCES, 'triazole_space.txt'), out: join(root, 'tri'), id: 'tri' });
  triazole = await openSpace(join(root, 'tri'));
}, 600_000);
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const fpOf = (smiles: string): Uint8Array => {
  const mol = rd.get_mol(smiles)!;
  const fp = new Uint8Array(mol.get_morgan_fp_as_uint8array(MORGAN_DETAILS) as Uint8Array);
  mol.delete();
  return fp;
};

/** The walk's proposals and, by brute force, every tuple whose OR bound reaches t. */
function compare(sp: OpenSpace, smiles: string, t: number): { walked: number; wanted: number } {
  const q = fpWords(fpOf(smiles));
  const a = popcountWords(q);
  let walked = 0;
  let wanted = 0;
  sp.reactions.forEach((reaction, r) => {
    const slots = reaction.slots;
    const terms = slots.map((s) => slotTerms(q, s.guaranteed, s.unstableEnvs));
    const got = new Map<string, number>();
    const push = (pick: Int32Array, bound: number): boolean => {
      got.set(pick.join(','), bound);
      return true;
    };
    tupleWalk(q, a, t, slots, terms, { screened: 0 }, push, () => false);
    const cols = slots.map((s) => columnWords(s.guaranteed));
    const pairs = ringPairsOf(slots);
    const want = new Map<string, number>();
    for (const tuple of reactionTuples(sp, r)) {
      const pick = Int32Array.from(tuple.synthons);
      const u = tuple.synthons.reduce((n, i, s) => n + slots[s].unstableEnvs[i], 0);
      const bound = pickBound(q, a, cols, pick, u, new Uint32Array(64));
      const invalid = pairs !== undefined && pairEntry(pairs, pick[0], pick[1]) === PAIR_INVALID;
      if (bound + 1e-9 >= t && !invalid) want.set(tuple.synthons.join(','), bound);
    }
    expect(new Map([...got].sort()), reaction.info.id).toEqual(new Map([...want].sort()));
    walked += got.size;
    wanted += want.size;
  });
  return { walked, wanted };
}

describe('tupleWalk', () => {
  it('proposes exactly the tuples whose OR bound reaches t (AutoGrow4 ring-closing and Wittig sample)', () => {
    // An indole, a quinoline and a stilbene-like query: products of these reactions score high.
    for (const [smiles, t] of [
      ['Cc1[nH]c2ccccc2c1C', 0.3],
      ['c1ccc2ncccc2c1', 0.25],
      ['C(=Cc1ccccc1)c1ccccc1', 0.2],
    ] as const) {
      const res = compare(ag4, smiles, t);
      expect(res.wanted, smiles).toBeGreaterThan(5);
    }
  });

  it('does so at high thresholds and at 0 (every tuple), where the pair walk skips most groups or none', () => {
    for (const [smiles, t] of [
      ['Cc1[nH]c2ccccc2c1C', 0.55],
      ['Cc1[nH]c2ccccc2c1C', 0],
      ['C(=Cc1ccccc1)c1ccccc1', 0.45],
      // Celecoxib: over 32 query bits, so two mask words per synthon.
      ['Cc1ccc(-c2cc(C(F)(F)F)nn2-c2ccc(S(N)(=O)=O)cc2)cc1', 0.15],
    ] as const)
      compare(ag4, smiles, t);
  });

  it('groups a slot by query mask and unstable count, each group in ascending d (two-slot walk)', () => {
    const celecoxib = fpWords(fpOf('Cc1ccc(-c2cc(C(F)(F)F)nn2-c2ccc(S(N)(=O)=O)cc2)cc1'));
    expect(popcountWords(celecoxib)).toBeGreaterThan(32);
    for (const q of [fpWords(fpOf('Cc1[nH]c2ccccc2c1C')), celecoxib])
      for (const reaction of ag4.reactions) {
        const slot = reaction.slots[1];
        const ts = slotTerms(q, slot.guaranteed, slot.unstableEnvs);
        const g = maskGroups(ts, slot.unstableEnvs);
        const keyOf = (i: number): string =>
          `${slot.unstableEnvs[i]}:${ts.qm.subarray(i * ts.qw, (i + 1) * ts.qw)}`;
        expect([...g.order].sort((x, y) => x - y)).toEqual([...ts.w.keys()]);
        for (let n = 0; n + 1 < g.start.length; n++) {
          const members = [...g.order.subarray(g.start[n], g.start[n + 1])];
          expect(new Set(members.map(keyOf)).size).toBe(1);
          const d = members.map((i) => ts.d[i]);
          expect(d).toEqual([...d].sort((x, y) => x - y));
          // A synthon's own fold bound never exceeds its d, so ordering by d loses no cut.
          for (const i of members) {
            let out = 0;
            for (let k = 0; k < FOLD_WORDS; k++) out += pop32(ts.fold[i * FOLD_WORDS + k] & ts.keep[k]);
            expect(out).toBeLessThanOrEqual(ts.d[i]);
          }
          if (n > 0) expect(g.w[n]).toBeLessThanOrEqual(g.w[n - 1]);
        }
        // One group per distinct (u, mask).
        expect(new Set([...ts.w.keys()].map(keyOf)).size).toBe(g.start.length - 1);
      }
  });

  it('dMax is the largest d with m ≥ t(a + d), by the same floating comparison', () => {
    for (const t of [0.05, 0.3, 0.477, 0.5, 0.55, 0.62, 0.7, 1])
      for (let a = 1; a <= 64; a++)
        for (let m = 0; m <= a; m++) {
          const d = dMax(m, a, t);
          if (d >= 0) expect(m < t * (a + d)).toBe(false);
          expect(m < t * (a + d + 1)).toBe(true);
        }
    expect(dMax(3, 20, 0)).toBe(Infinity);
  });

  it('does so for three-slot reactions too (the triazole test space)', () => {
    const res = compare(triazole, 'Cn1cc(-c2ccccc2)nn1', 0.1);
    expect(res.wanted).toBeGreaterThan(0);
  });
});
