// The ring-pair tables of format 6: what the build learnt about each pair of ring cores, read
// back by searches on a fresh thread, which then ask RDKit nothing about pairs.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getRDKit, type RDKitModule } from '../../../engine/chem/rdkit.ts';
import { assembleProduct } from '../../../engine/synthons/assemble.ts';
import { buildSpace } from '../../../engine/synthons/build-space.ts';
import {
  decodeRingPairs,
  encodeRingPairs,
  pairEntry,
  PAIR_INVALID,
  PAIR_NONE,
  PAIR_RDKIT,
  ringPairsOf,
  storedState,
  type StoredState,
} from '../../../engine/synthons/ring-pairs.ts';
import { clearRingPairs, ringZipFingerprint, ringZipStats } from '../../../engine/synthons/ring-zip.ts';
import { similaritySearch } from '../../../engine/synthons/similarity.ts';
import { openSpace, reactionTuples, tupleSmiles } from '../../../engine/synthons/space.ts';
import { writeAutogrow4Sample } from './ag4-sample.ts';

let root: string;
let rd: RDKitModule;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'ring-pairs-'));
  rd = await getRDKit();
});
afterAll(async () => {
  clearRingPairs();
  await rm(root, { recursive: true, force: true });
});

const state = (h: number): StoredState => ({
  aromatic: [Uint8Array.of(1, 0), Uint8Array.of(1)],
  hs: [Uint8Array.of(h, 2), Uint8Array.of(0)],
  charge: [Int8Array.of(0, -1), Int8Array.of(1)],
  bonds: new Map([
    [4097 * 65536 + 1, 12],
    [2 * 65536 + 4096, 2],
  ]),
});

describe('ring-pair tables', () => {
  it('read back every outcome: states (equal ones stored once), RDKit, invalid, no core', () => {
    const core: [Int32Array, Int32Array] = [Int32Array.of(0, 1, -1, 1), Int32Array.of(1, 0, 2)];
    const outcome = (a: number, b: number) =>
      a === 0 && b === 2 ? 'invalid' : a === 1 && b === 0 ? null : state(a === 0 ? 1 : 0);
    const bytes = encodeRingPairs(core, [2, 3], outcome);
    const back = decodeRingPairs(bytes);
    expect(Array.from(back.core[0])).toEqual([0, 1, -1, 1]);
    expect(pairEntry(back, 0, 2)).toBe(PAIR_INVALID);
    expect(pairEntry(back, 1, 1)).toBe(PAIR_RDKIT);
    expect(pairEntry(back, 2, 0)).toBe(PAIR_NONE);
    const a = pairEntry(back, 0, 0);
    expect(storedState(back, a)).toEqual(state(1));
    expect(storedState(back, pairEntry(back, 1, 0))).toEqual(state(0));
    // Pairs (0,0) and (0,1) share one state, so the blob holds two states, not four.
    expect(pairEntry(back, 0, 1)).toBe(a);
    const one = 2 * 2 + 3 * 3 + 2 + 5 * 2;
    expect(back.blob.length).toBe(2 * one);
    expect(() => decodeRingPairs(new Uint8Array(24))).toThrow(/ring-pair table/);
  });

  it(
    'AutoGrow4 sample: a fresh thread scores every ring-bound product as RDKit does without learning ' +
      'a pair, and the walk proposes no tuple of a pair molzip cannot join',
    { timeout: 600_000 },
    async () => {
      const file = join(root, 'ag4.txt');
      await writeAutogrow4Sample(file, {
        smallest: 2,
        spread: 6,
        reactions: (id) => /^(59_|60_|61_|86_)/.test(id),
      });
      const out = join(root, 'ag4');
      await buildSpace({ input: file, out, id: 'ag4' });
      clearRingPairs();
      const sp = await openSpace(out);
      Object.assign(ringZipStats, { hits: 0, misses: 0, mismatches: 0, refused: 0 });
      let compared = 0;
      let invalidPairs = 0;
      let invalid = 0;
      sp.reactions.forEach((reaction, r) => {
        const table = ringPairsOf(reaction.slots);
        expect(table, reaction.info.id).toBeDefined();
        for (const t of reactionTuples(sp, r)) {
          const want = assembleProduct(rd, tupleSmiles(sp, t), true);
          const got = ringZipFingerprint(rd, reaction.slots, t.synthons, reaction.info.ringForming);
          const entry = pairEntry(table!, t.synthons[0], t.synthons[1]);
          if (entry === PAIR_INVALID) {
            invalidPairs++;
            expect(want?.fp, `${tupleSmiles(sp, t)}: marked invalid`).toBeUndefined();
          }
          if (!want?.fp) {
            invalid++;
            expect(got ?? undefined).toBeUndefined();
            continue;
          }
          expect(got && [...got], want.smiles).toEqual([...want.fp]);
          compared++;
        }
      });
      expect(compared).toBeGreaterThan(200);
      expect(invalidPairs).toBeGreaterThan(0);
      // Nothing learnt from RDKit: every pair came from the table.
      expect(ringZipStats.misses).toBe(0);
      expect(ringZipStats.hits).toBeGreaterThan(compared / 2);
      // A walk admitting every tuple proposes none of the marked pairs: those invalid
      // assemblies are never tried, the others still are and are counted.
      const all = similaritySearch(rd, sp, new Uint8Array(256), { threshold: 0 });
      const products = sp.reactions.reduce((n, r) => n + r.info.products, 0);
      expect(all.counts.candidates).toBe(products - invalidPairs);
      expect(all.counts.invalid).toBe(invalid - invalidPairs);
    },
  );
});
