import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  DESCRIPTOR_NAMES,
  canonicalize,
  fromOnBits,
  getRDKit,
  matchSubstructure,
  onBits,
  parseMolecule,
  tanimoto,
  type RDKitModule,
} from '../../../engine/chem/index.ts';

interface RefMolecule {
  input: string;
  canonical: string;
  on_bits: number[];
  popcount: number;
  descriptors: Record<string, number>;
  scaffold: string;
}
const fixture = JSON.parse(
  readFileSync(new URL('../../fixtures/rdkit-reference.json', import.meta.url), 'utf8'),
) as {
  rdkit_version: string;
  invalid: string[];
  molecules: RefMolecule[];
  tanimoto_pairs: [number, number, number][];
};
const INTEGER_DESCRIPTORS = new Set([
  'formal_charge',
  'heavy_atoms',
  'h_bond_acceptors',
  'h_bond_donor',
  'rotatable_bonds',
  'num_of_rings',
  'number_of_atoms',
]);

let rd: RDKitModule;
beforeAll(async () => {
  rd = await getRDKit();
});

describe('parseMolecule against Python RDKit reference values', () => {
  it('uses the same RDKit version as the fixture', () => {
    expect(rd.version()).toBe(fixture.rdkit_version);
  });

  it('reproduces canonical SMILES, Morgan bits, descriptors and scaffolds of every fixture molecule', () => {
    const mismatches: string[] = [];
    for (const m of fixture.molecules) {
      const r = parseMolecule(rd, m.input);
      if ('error' in r) {
        mismatches.push(`${m.input}: ${r.error}`);
        continue;
      }
      if (r.canonicalSmiles !== m.canonical)
        mismatches.push(`${m.input}: smiles ${r.canonicalSmiles} != ${m.canonical}`);
      if (onBits(r.fp).join() !== m.on_bits.join() || r.popcount !== m.popcount)
        mismatches.push(`${m.input}: fingerprint bits differ`);
      if (r.scaffold !== m.scaffold) mismatches.push(`${m.input}: scaffold ${r.scaffold} != ${m.scaffold}`);
      for (const name of DESCRIPTOR_NAMES) {
        const got = r.descriptors[name];
        const want = m.descriptors[name];
        const ok = INTEGER_DESCRIPTORS.has(name)
          ? got === want
          : Math.abs(got - want) <= 1e-6 * Math.max(1, Math.abs(want));
        if (!ok) mismatches.push(`${m.input}: ${name} ${got} != ${want}`);
      }
    }
    expect(mismatches).toEqual([]);
    expect(fixture.molecules.length).toBeGreaterThan(290);
  });

  it('covers salts, charges, stereo, acyclic molecules and macrocycles', () => {
    const inputs = fixture.molecules.map((m) => m.input);
    expect(inputs.filter((s) => s.includes('.')).length).toBeGreaterThanOrEqual(10);
    expect(fixture.molecules.filter((m) => m.descriptors.formal_charge !== 0).length).toBeGreaterThanOrEqual(
      5,
    );
    expect(inputs.filter((s) => s.includes('@')).length).toBeGreaterThanOrEqual(10);
    expect(fixture.molecules.filter((m) => m.scaffold === '').length).toBeGreaterThanOrEqual(10);
  });

  it('rejects empty, unparsable, over-long and hydrogen-only input with a reason', () => {
    for (const s of fixture.invalid) {
      const r = parseMolecule(rd, s);
      expect(r, JSON.stringify(s.slice(0, 30))).toHaveProperty('error');
    }
    expect(parseMolecule(rd, 'C'.repeat(1001))).toEqual({ error: 'SMILES longer than 1000 characters' });
    expect(parseMolecule(rd, '[H][H]')).toEqual({ error: 'no heavy atoms' });
  });

  it("rejects SMARTS' any bond, which RDKit's SMILES parser reads as a query bond", () => {
    // Python RDKit: MolFromSmiles('[#6]~[#7]') parses, with bond.HasQuery() true.
    for (const s of ['[#6]~[#7]', 'C~N', 'c1ccccc1~O']) {
      const r = parseMolecule(rd, s);
      expect(r, s).toHaveProperty('error');
      expect((r as { error: string }).error).toMatch(/'~' \(any bond\)/);
    }
    expect(parseMolecule(rd, '[#6][#7]')).not.toHaveProperty('error');
  });
});

describe('tanimoto', () => {
  it('equals RDKit TanimotoSimilarity on every fixture pair', () => {
    const fps = fixture.molecules.map((m) => fromOnBits(m.on_bits));
    for (const [i, j, want] of fixture.tanimoto_pairs) expect(tanimoto(fps[i], fps[j])).toBeCloseTo(want, 12);
  });

  it('is 1 for identical and 0 for two empty fingerprints', () => {
    const a = fromOnBits([1, 5, 2047]);
    expect(tanimoto(a, a)).toBe(1);
    expect(tanimoto(new Uint8Array(256), new Uint8Array(256))).toBe(0);
  });
});

describe('canonicalize and matchSubstructure', () => {
  it('canonicalizes equivalent SMILES to one string and rejects bad input', () => {
    expect(canonicalize(rd, 'OC(=O)c1ccccc1')).toBe(canonicalize(rd, 'c1ccc(cc1)C(O)=O'));
    expect(canonicalize(rd, 'C1CC')).toBeUndefined();
  });

  it('returns matched atom and bond indices, null without a match', () => {
    expect(matchSubstructure(rd, 'CCOC(=O)C', 'C(=O)O')).toEqual({ atoms: [3, 4, 2], bonds: [3, 2] });
    expect(matchSubstructure(rd, 'CCCC', 'c1ccccc1')).toBeNull();
    expect(() => matchSubstructure(rd, 'CCCC', 'C(((')).toThrow(/could not parse/);
  });
});
