import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getRDKit, type RDKitModule } from '../../../engine/chem/rdkit.ts';
import { canonicalize } from '../../../engine/chem/molecule.ts';
import { buildSpace } from '../../../engine/synthons/build-space.ts';
import { openSpace, tupleOfId, type OpenSpace } from '../../../engine/synthons/space.ts';
import { sampleSpace } from '../../../engine/synthons/sample.ts';

const SOURCES = new URL('../../../catalogs/spaces/sources/', import.meta.url).pathname;
const FIXTURES = new URL('../../fixtures/synthons/', import.meta.url).pathname;
let root: string;
let rd: RDKitModule;
let space: OpenSpace;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'space-sample-'));
  rd = await getRDKit();
  await buildSpace({ input: join(SOURCES, 'urea_space.txt'), out: join(root, 'u'), id: 'u' });
  space = await openSpace(join(root, 'u'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('sampleSpace', () => {
  it('is reproducible by seed and differs between seeds', () => {
    const a = sampleSpace(rd, space, 5, 42);
    const b = sampleSpace(rd, space, 5, 42);
    const c = sampleSpace(rd, space, 5, 43);
    expect(a.products.map((p) => p.productId)).toEqual(b.products.map((p) => p.productId));
    expect(c.products.map((p) => p.productId)).not.toEqual(a.products.map((p) => p.productId));
  });

  it('returns distinct real products of the space, counting repeats as deduplicated', async () => {
    const enumText = await readFile(join(FIXTURES, 'urea_space_enum.smi'), 'utf8');
    const all = new Set(
      enumText
        .trim()
        .split('\n')
        .map((l) => canonicalize(rd, l.split(/\s+/)[0])),
    );
    // Asking for all 12 products of a 12-product space needs repeats along the way.
    const res = sampleSpace(rd, space, 12, 1);
    expect(res.products).toHaveLength(12);
    expect(new Set(res.products.map((p) => p.productId)).size).toBe(12);
    expect(res.deduplicated).toBeGreaterThan(0);
    for (const p of res.products) {
      expect(all.has(p.smiles)).toBe(true);
      expect(tupleOfId(space, p.productId)).toBeDefined();
      expect(p.synthons.map((s) => s.slot)).toEqual([0, 1, 2]);
    }
    // More than the space holds: every product once, then it stops.
    expect(sampleSpace(rd, space, 50, 1).products).toHaveLength(12);
  });
});
