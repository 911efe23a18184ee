// The space thread's warm-up: one small search on the smallest space big enough to tier up RDKit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getRDKit, type RDKitModule } from '../../../engine/chem/rdkit.ts';
import { buildSpace } from '../../../engine/synthons/build-space.ts';
import { openSpace, type OpenSpace } from '../../../engine/synthons/space.ts';
import { warmUp, warmUpSpace } from '../../../engine/synthons/warm-up.ts';

const SOURCES = new URL('../../../catalogs/spaces/sources/', import.meta.url).pathname;
let root: string;
let rd: RDKitModule;
const spaces = new Map<string, OpenSpace>();

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'space-warm-'));
  rd = await getRDKit();
  for (const name of ['urea_space', 'amide_space', 'idorsia_toy_space_a']) {
    await buildSpace({ input: join(SOURCES, `${name}.txt`), out: join(root, name), id: name });
    spaces.set(name, await openSpace(join(root, name)));
  }
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('space thread warm-up', () => {
  it('searches the smallest space with at least 1,000 products', () => {
    const all = [...spaces.values()];
    expect(all.filter((s) => s.manifest.counts.products < 1000).length).toBe(2);
    expect(warmUpSpace(all)?.manifest.id).toBe('idorsia_toy_space_a');
  });

  it('falls back to the largest space when none is that big, and to nothing without spaces', () => {
    const small = [spaces.get('urea_space')!, spaces.get('amide_space')!];
    const most = Math.max(...small.map((s) => s.manifest.counts.products));
    expect(warmUpSpace(small)?.manifest.counts.products).toBe(most);
    expect(warmUp(rd, [])).toBeUndefined();
  });

  it('runs its search within its time bound and says where', () => {
    const w = warmUp(rd, [...spaces.values()]);
    expect(w?.space).toBe('idorsia_toy_space_a');
    expect(w!.ms).toBeGreaterThan(0);
    expect(w!.ms).toBeLessThan(10_000);
  });
});
