// Substructure and superstructure search over spaces against brute force over the full
// enumerations: RDKit's (test/fixtures/synthons/similarity-reference.json, section "substructure",
// Python RDKit) and our own enumeration matched query by query with RDKit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getRDKit, type RDKitModule } from '../../../engine/chem/rdkit.ts';
import { canonicalize } from '../../../engine/chem/molecule.ts';
import { buildSpace } from '../../../engine/synthons/build-space.ts';
import { assembleProduct } from '../../../engine/synthons/assemble.ts';
import {
  enumerateSpace,
  openSpace,
  reactionTuples,
  tupleSmiles,
  type OpenSpace,
} from '../../../engine/synthons/space.ts';
import { substructureSearch } from '../../../engine/synthons/substructure.ts';

const SOURCES = new URL('../../../catalogs/spaces/sources/', import.meta.url).pathname;
const FIXTURE = new URL('../../fixtures/synthons/similarity-reference.json', import.meta.url);
const SMALL = ['amide_space', 'urea_space', 'triazole_space', 'doebner_miller_space'];
let root: string;
let rd: RDKitModule;
let reference: Record<string, Record<string, string[]>>;
const spaces = new Map<string, OpenSpace>();

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'space-sss-'));
  rd = await getRDKit();
  reference = JSON.parse(await readFile(FIXTURE, 'utf8')).substructure;
  for (const name of [...SMALL, 'idorsia_toy_space_a']) {
    await buildSpace({ input: join(SOURCES, `${name}.txt`), out: join(root, name), id: name });
    spaces.set(name, await openSpace(join(root, name)));
  }
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const canon = (list: string[]) => new Set(list.map((s) => canonicalize(rd, s)!));
const ALL = { maxHits: 1e6, maxProducts: 1e6 };

/** Brute force with RDKit over our enumeration: products the query is in (or that are in it). */
function bruteForce(space: OpenSpace, query: string, mode: 'substructure' | 'superstructure', smarts = true) {
  const q = mode === 'substructure' && smarts ? rd.get_qmol(query)! : rd.get_mol(query)!;
  const out = new Set<string>();
  for (const p of enumerateSpace(rd, space).products) {
    const m = rd.get_mol(p.smiles)!;
    const match = mode === 'substructure' ? m.get_substruct_match(q) : q.get_substruct_match(m);
    if (JSON.parse(match).atoms?.length) out.add(p.smiles);
    m.delete();
  }
  q.delete();
  return out;
}

describe('substructureSearch (fragments matched against synthon sets, then verified)', () => {
  for (const name of ['urea_space', 'triazole_space', 'doebner_miller_space'])
    it(`${name}: the same product set as RDKit's brute force for every query`, () => {
      for (const [smarts, want] of Object.entries(reference[name])) {
        const res = substructureSearch(rd, spaces.get(name)!, smarts, ALL);
        expect(res.timedOut).toBe(false);
        expect(res.coverage).toBe(1);
        expect(new Set(res.hits.map((h) => h.smiles)), `${name} ${smarts}`).toEqual(canon(want));
        for (const h of res.hits) expect(h.matchedAtoms.length).toBeGreaterThan(0);
      }
    });

  it('amide space: SMARTS and SMILES queries equal brute force over the enumeration', () => {
    const space = spaces.get('amide_space')!;
    for (const [query, smarts] of [
      ['C(=O)N', true],
      ['c1ccccc1C(=O)N', true],
      ['[#6]-[#7;R]', true],
      ['ClC', true],
      ['O=C(N)C1CCCCC1', false],
      ['CCCCC', false],
    ] as const) {
      const want = bruteForce(space, query, 'substructure', smarts);
      const res = substructureSearch(rd, space, query, { ...ALL, format: smarts ? 'smarts' : 'smiles' });
      expect(new Set(res.hits.map((h) => h.smiles)), query).toEqual(want);
    }
  });

  it('superstructure: the products contained in the query equal brute force', () => {
    for (const name of SMALL) {
      const space = spaces.get(name)!;
      const products = enumerateSpace(rd, space).products.map((p) => p.smiles);
      // Each product contains itself; a larger molecule made of two products holds several.
      for (const query of [products[0], products[products.length - 1], `${products[0]}.${products[1]}`]) {
        const res = substructureSearch(rd, space, query, { ...ALL, mode: 'superstructure' });
        const want = bruteForce(space, query, 'superstructure');
        expect(want.size).toBeGreaterThan(0);
        expect(new Set(res.hits.map((h) => h.smiles)), `${name} ${query}`).toEqual(want);
      }
    }
  });

  it('the synthon screen decides the Idorsia space assembling only candidates', () => {
    const space = spaces.get('idorsia_toy_space_a')!;
    const res = substructureSearch(rd, space, 'c1ccc2ncccc2c1', ALL);
    expect(new Set(res.hits.map((h) => h.smiles))).toEqual(
      canon(reference.idorsia_toy_space_a['c1ccc2ncccc2c1']),
    );
    expect(res.coverage).toBe(1);
    expect(res.examined).toBeLessThan(1000); // of 29,200 products
    expect(res.screened + res.examined).toBe(29200);
  });

  it('hits name their synthons, which re-assemble to the hit', () => {
    const res = substructureSearch(rd, spaces.get('urea_space')!, 'C(=O)N', ALL);
    for (const h of res.hits)
      expect(h.productId.split(';')).toEqual([h.reactionId, ...h.synthons.map((s) => s.synthonId)]);
  });

  it('a bounded search returns only true hits and says it stopped', () => {
    const want = canon(reference.idorsia_toy_space_a['FC(F)']);
    const res = substructureSearch(rd, spaces.get('idorsia_toy_space_a')!, 'FC(F)', { maxProducts: 50 });
    expect(res.timedOut).toBe(true);
    expect(res.examined).toBe(50);
    expect(res.coverage).toBeLessThan(1);
    for (const h of res.hits) expect(want.has(h.smiles), h.smiles).toBe(true);
  });

  it('a search stopped at maxHits screens only the synthons its walk reached, same first hits', () => {
    const space = spaces.get('idorsia_toy_space_a')!;
    const all = substructureSearch(rd, space, 'C(=O)N', ALL);
    const first = substructureSearch(rd, space, 'C(=O)N', { maxHits: 10 });
    expect(all.hits.length).toBeGreaterThan(10);
    expect(first.hits.map((h) => h.productId)).toEqual(all.hits.slice(0, 10).map((h) => h.productId));
    expect(first.fragmentMatches).toBeLessThan(all.fragmentMatches / 10); // 250 synthons match
    // Coverage counts only products decided: the ten verified, not the space's unscreened rest.
    expect(first.coverage).toBeGreaterThanOrEqual(10 / 29200);
    expect(first.coverage).toBeLessThan(all.coverage);
  });

  it('a deadline already passed stops before any assembly', () => {
    const res = substructureSearch(rd, spaces.get('idorsia_toy_space_a')!, 'C', { deadline: Date.now() - 1 });
    expect(res.timedOut).toBe(true);
    expect(res.examined).toBe(0);
  });

  it('superstructure: a passed deadline stops the synthon screen itself', () => {
    const space = spaces.get('idorsia_toy_space_a')!;
    const query = assembleProduct(rd, tupleSmiles(space, reactionTuples(space, 0).next().value!))!.smiles;
    const res = substructureSearch(rd, space, query, { mode: 'superstructure', deadline: Date.now() - 1 });
    expect(res.timedOut).toBe(true);
    expect(res.examined).toBe(0);
    expect(res.hits).toEqual([]);
    expect(res.coverage).toBeLessThan(1);
  });

  it('an invalid query is a validation error naming the field', () => {
    expect(() => substructureSearch(rd, spaces.get('urea_space')!, 'C(C')).toThrow(
      /query: not a valid SMARTS or SMILES/,
    );
    expect(() =>
      substructureSearch(rd, spaces.get('urea_space')!, '[C,N]', { mode: 'superstructure' }),
    ).toThrow(/query: not a valid SMILES molecule/);
  });
});
