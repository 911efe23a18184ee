// nearOf (ring-near-memo.ts) gives what nearBits computes, whether it reads the memo or fills
// it, for every tuple of the Doebner-Miller test space's ring-closing reactions, and again after
// the pool of sides (whose offsets key the memo) has been cleared.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getRDKit, type RDKitModule } from '../../../engine/chem/rdkit.ts';
import { clearRingSides, ringReaction, sidePool, tupleSides } from '../../../engine/synthons/ring-cross.ts';
import { nearOf } from '../../../engine/synthons/ring-near-memo.ts';
import { nearBits } from '../../../engine/synthons/ring-side-codes.ts';
import { clearRingPairs } from '../../../engine/synthons/ring-zip.ts';
import { reactionTuples, type OpenSpace } from '../../../engine/synthons/space.ts';
import { builtSpace, SPACE_SOURCES } from './support/spaces.ts';

let root: string;
let rd: RDKitModule;
let space: OpenSpace;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'near-memo-'));
  rd = await getRDKit();
  space = await builtSpace(root, join(SPACE_SOURCES, 'doebner_miller_space.txt'), 'dm');
}, 300_000);
afterAll(async () => {
  clearRingPairs();
  clearRingSides();
  await rm(root, { recursive: true, force: true });
});

/** Per tuple with sides, both directions: [direct bits, direct codes, memo bits, memo codes]. */
function compareAll(): { tuples: number; repeats: number } {
  let tuples = 0;
  let repeats = 0;
  const seen = new Set<string>();
  space.reactions.forEach((reaction, r) => {
    const ring = ringReaction(rd, reaction);
    if (!ring) return;
    for (const t of reactionTuples(space, r)) {
      const [i, j] = t.synthons;
      const sides = tupleSides(ring, i, j);
      if (!sides) continue;
      tuples++;
      const p = sidePool();
      for (const [off, poff] of [sides, [sides[1], sides[0]]]) {
        const key = `${off}:${Array.from(p.subarray(poff + 64, poff + 65 + 2 * p[poff + 64]))}`;
        if (seen.has(key)) repeats++;
        seen.add(key);
        // Twice through the memo: the first may fill it, the second reads it.
        for (let n = 0; n < 2; n++) {
          const want: number[] = [];
          const wantCodes = new Uint32Array(64);
          const ok = nearBits(p, off, p, poff, want, wantCodes);
          const got: number[] = [7]; // appended to, as ringCrossBound's list is
          const codes = new Uint32Array(64);
          expect(nearOf(p, off, poff, got, codes)).toBe(ok);
          if (!ok) continue;
          expect(got).toEqual([7, ...want]);
          expect(codes).toEqual(wantCodes);
        }
      }
    }
  });
  return { tuples, repeats };
}

describe('near bits by side and partner labelling', () => {
  it('are those nearBits computes, from the memo or not', () => {
    clearRingSides();
    const { tuples, repeats } = compareAll();
    expect(tuples).toBeGreaterThan(0);
    // Sides meet the same partner labelling again, so the memo is read, not only filled.
    expect(repeats).toBeGreaterThan(0);
  });

  it('are right again after the pool of sides is cleared and its offsets reused', () => {
    compareAll();
    clearRingSides();
    expect(compareAll().tuples).toBeGreaterThan(0);
  });
});
