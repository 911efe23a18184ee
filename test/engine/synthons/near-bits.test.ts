// The near bits kept per opened space (engine/synthons/near-bits.ts) count a query's near bits as
// hashing each synthon's environments per query did (join-env.ts's nearCodes), on the RDKit amide
// space (real RDKit-built join environments); the walk's exactness is join-walk.test.ts's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getRDKit } from '../../../engine/chem/rdkit.ts';
import { FP_BYTES } from '../../../engine/chem/fingerprint.ts';
import { nearCodes } from '../../../engine/synthons/join-env.ts';
import { envAt, envC0, type PackedEnvs } from '../../../engine/synthons/packed-envs.ts';
import { slotJoinEnvs } from '../../../engine/synthons/join-walk.ts';
import { nearBits, nearInQ } from '../../../engine/synthons/near-bits.ts';
import type { OpenSpace } from '../../../engine/synthons/space.ts';
import { builtSpace, morganOf, SPACE_SOURCES } from './support/spaces.ts';

const NBITS = FP_BYTES * 8;
let root: string;
let space: OpenSpace;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'near-bits-'));
  space = await builtSpace(root, join(SPACE_SOURCES, 'amide_space.txt'), 'amide');
}, 120_000);
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('near bits', () => {
  it('count, per synthon and partner invariant, the distinct near-code bits a query holds', async () => {
    const rd = await getRDKit();
    const envs = space.reactions[0].slots.map((s) => slotJoinEnvs(s)) as PackedEnvs[];
    expect(envs.every((e) => e !== undefined && e.length > 0)).toBe(true);
    const queries = ['CC(=O)NC1CCCC1', 'O=C(NCc1ccccc1)c1ccncc1', 'CCCCNC(=O)CC'];
    let checked = 0;
    for (const smiles of queries) {
      const fp = morganOf(rd, smiles);
      const q = new Uint32Array(fp.buffer, fp.byteOffset, fp.byteLength / 4);
      for (let s = 0; s < 2; s++)
        for (const partner of new Set(
          Array.from({ length: envs[1 - s].length }, (_, i) => envC0(envs[1 - s], i)),
        )) {
          const near = nearBits(envs[s], partner);
          for (let i = 0; i < envs[s].length; i++) {
            const bits = new Set(nearCodes(envAt(envs[s], i), partner).map((c) => c % NBITS));
            const held = [...bits].filter((b) => (fp[b >> 3] >> (b & 7)) & 1).length;
            expect(near.offsets[i + 1] - near.offsets[i]).toBe(bits.size);
            expect(nearInQ(q, near, i)).toBe(held + 1);
            checked++;
          }
          // Kept: the same object answers the next query.
          expect(nearBits(envs[s], partner)).toBe(near);
        }
    }
    expect(checked).toBeGreaterThan(6);
  });
});
