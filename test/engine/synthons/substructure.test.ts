// The bounded substructure scan against brute force over RDKit's enumerations
// (test/fixtures/synthons/similarity-reference.json, section "substructure", Python RDKit).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getRDKit, type RDKitModule } from '../../../engine/chem/rdkit.ts';
import { canonicalize } from '../../../engine/chem/molecule.ts';
import { buildSpace } from '../../../engine/synthons/build-space.ts';
import { openSpace, type OpenSpace } from '../../../engine/synthons/space.ts';
import { substructureSearch } from '../../../engine/synthons/substructure.ts';

const SOURCES = new URL('../../../catalogs/spaces/sources/', import.meta.url).pathname;
const FIXTURE = new URL('../../fixtures/synthons/similarity-reference.json', import.meta.url);
let root: string;
let rd: RDKitModule;
let reference: Record<string, Record<string, string[]>>;
const spaces = new Map<string, OpenSpace>();

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'space-sss-'));
  rd = await getRDKit();
  reference = JSON.parse(await readFile(FIXTURE, 'utf8')).substructure;
  for (const name of Object.keys(reference)) {
    await buildSpace({ input: join(SOURCES, `${name}.txt`), out: join(root, name), id: name });
    spaces.set(name, await openSpace(join(root, name)));
  }
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const canon = (list: string[]) => new Set(list.map((s) => canonicalize(rd, s)!));

describe('substructureSearch', () => {
  for (const name of ['urea_space', 'triazole_space', 'doebner_miller_space'])
    it(`${name}: the same product set as brute force for every query`, () => {
      for (const [smarts, want] of Object.entries(reference[name])) {
        const res = substructureSearch(rd, spaces.get(name)!, smarts);
        expect(res.timedOut).toBe(false);
        expect(res.coverage).toBe(1);
        expect(new Set(res.hits.map((h) => h.smiles)), `${name} ${smarts}`).toEqual(canon(want));
        for (const h of res.hits) expect(h.matchedAtoms.length).toBeGreaterThan(0);
      }
    });

  it('a bounded scan of the Idorsia space returns only true hits and says it stopped', () => {
    const want = canon(reference.idorsia_toy_space_a['FC(F)']);
    const res = substructureSearch(rd, spaces.get('idorsia_toy_space_a')!, 'FC(F)', { maxProducts: 300 });
    expect(res.timedOut).toBe(true);
    expect(res.coverage).toBeLessThan(0.02);
    for (const h of res.hits) expect(want.has(h.smiles), h.smiles).toBe(true);
  });

  it('an invalid query is a validation error naming the field', () => {
    expect(() => substructureSearch(rd, spaces.get('urea_space')!, 'C(C')).toThrow(
      /not a valid SMARTS or SMILES/,
    );
  });
});
