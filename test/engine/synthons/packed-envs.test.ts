// Packed join environments unpack to exactly what decoding the stored text gives (join-env.ts), on
// every synthon of the Idorsia toy space and the RDKit amide space (real RDKit-built columns).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJoinEnv } from '../../../engine/synthons/join-env.ts';
import { envAt, envC0, packJoinEnvs } from '../../../engine/synthons/packed-envs.ts';
import type { OpenSpace } from '../../../engine/synthons/space.ts';
import { builtSpace, IDORSIA_SOURCE, SPACE_SOURCES } from './support/spaces.ts';

let root: string;
const spaces: OpenSpace[] = [];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'packed-envs-'));
  spaces.push(await builtSpace(root, IDORSIA_SOURCE, 'idorsia'));
  spaces.push(await builtSpace(root, join(SPACE_SOURCES, 'amide_space.txt'), 'amide'));
}, 300_000);
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('packed join environments', () => {
  it('unpack to the decoded environment of every synthon that has one', () => {
    let checked = 0;
    for (const space of spaces)
      for (const r of space.reactions)
        for (const slot of r.slots) {
          const stored = slot.joinEnv;
          if (!stored || stored.some((e) => !e)) continue;
          const packed = packJoinEnvs(stored)!;
          expect(packed.length).toBe(stored.length);
          stored.forEach((text, i) => {
            const want = decodeJoinEnv(text)!;
            expect(envAt(packed, i)).toEqual(want);
            expect(envC0(packed, i)).toBe(want.c0);
            checked++;
          });
        }
    expect(checked).toBeGreaterThan(100);
  });

  it('are undefined for a slot where a synthon has no environment', () => {
    const slot = spaces[1].reactions[0].slots[0];
    expect(packJoinEnvs([...slot.joinEnv!, ''])).toBeUndefined();
  });
});
