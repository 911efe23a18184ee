// Space substructure search against RDKit's SynthonSpaceSearch (SubstructureSearch) and brute force
// over the full enumerations, both from Python RDKit 2026.9.1
// (test/fixtures/synthons/substructure-reference.json, scripts/reference/make_synthon_substructure_fixture.py).
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
const FIXTURE = new URL('../../fixtures/synthons/substructure-reference.json', import.meta.url);
type Entry = {
  brute_force?: string[];
  rdkit_sss?: string[];
  brute_force_count?: number;
  rdkit_sss_count?: number;
};
let root: string;
let rd: RDKitModule;
let reference: Record<string, Record<string, Entry>>;
const spaces = new Map<string, OpenSpace>();
const ALL = { maxHits: 1e6, maxProducts: 1e6 };

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'space-sss-rdkit-'));
  rd = await getRDKit();
  reference = JSON.parse(await readFile(FIXTURE, 'utf8')).spaces;
  for (const name of Object.keys(reference)) {
    await buildSpace({ input: join(SOURCES, `${name}.txt`), out: join(root, name), id: name });
    spaces.set(name, await openSpace(join(root, name)));
  }
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const canon = (list: string[]) => new Set(list.map((s) => canonicalize(rd, s)!));

describe('space substructure search against RDKit SynthonSpaceSearch', () => {
  for (const name of ['amide_space', 'urea_space', 'triazole_space', 'doebner_miller_space'])
    it(`${name}: the hits of RDKit's SubstructureSearch and of brute force, for 11 queries`, () => {
      for (const [query, e] of Object.entries(reference[name])) {
        const got = new Set(substructureSearch(rd, spaces.get(name)!, query, ALL).hits.map((h) => h.smiles));
        expect(got, `${name} ${query}`).toEqual(canon(e.brute_force!));
        expect(got, `${name} ${query}`).toEqual(canon(e.rdkit_sss!));
      }
    });

  it('Idorsia toy space: as many hits as RDKit SynthonSpaceSearch and brute force (morpholines)', () => {
    const e = reference.idorsia_toy_space_a['N1CCOCC1'];
    const res = substructureSearch(rd, spaces.get('idorsia_toy_space_a')!, 'N1CCOCC1', ALL);
    expect(new Set(res.hits.map((h) => h.smiles)).size).toBe(e.brute_force_count);
    expect(e.rdkit_sss_count).toBe(e.brute_force_count);
  });
});
