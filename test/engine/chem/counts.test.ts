import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  formalCharge,
  fractionCSP3,
  numAromaticRings,
  numAtoms,
  numHeavyAtoms,
  numHeteroatoms,
  numRings,
} from '../../../engine/chem/counts.ts';
import type { MolGraph } from '../../../engine/chem/graph.ts';
import { getRDKit, type RDKitModule } from '../../../engine/chem/rdkit.ts';
import { graphOf } from '../../support/mol-graph.ts';

// Python RDKit values: test/fixtures/make_graph_descriptors_reference.py writes this fixture.
const fixture = JSON.parse(
  readFileSync(new URL('../../fixtures/graph-descriptors-reference.json', import.meta.url), 'utf8'),
) as {
  columns: string[];
  molecules: (string | number)[][];
};
const COUNTS: [string, (g: MolGraph) => number][] = [
  ['num_atoms', numAtoms],
  ['heavy_atoms', numHeavyAtoms],
  ['num_rings', numRings],
  ['formal_charge', formalCharge],
  ['fraction_csp3', fractionCSP3],
  ['aromatic_rings', numAromaticRings],
  ['heteroatoms', numHeteroatoms],
];

let rd: RDKitModule;
beforeAll(async () => {
  rd = await getRDKit();
});

const graph = (smiles: string): MolGraph => graphOf(rd, smiles);

describe('atom, ring and charge counts equal Python RDKit', () => {
  it('give the same values as Python for every fixture molecule', () => {
    const mismatches: string[] = [];
    for (const row of fixture.molecules) {
      const g = graph(row[0] as string);
      for (const [name, fn] of COUNTS) {
        const want = row[fixture.columns.indexOf(name)];
        if (fn(g) !== want) mismatches.push(`${row[0]}: ${name} ${fn(g)} != ${want}`);
      }
    }
    expect(mismatches).toEqual([]);
  });

  it('count hydrogens that are not graph atoms in numAtoms, and hydrogen atoms once', () => {
    expect(numAtoms(graph('CC'))).toBe(8);
    expect(numAtoms(graph('[2H]C'))).toBe(5);
  });

  it('count dummy atoms as heteroatoms but not as heavy atoms', () => {
    expect(numHeavyAtoms(graph('*C'))).toBe(1);
    expect(numHeteroatoms(graph('*C'))).toBe(1);
    expect(numHeteroatoms(graph('[H][H]'))).toBe(0);
  });

  it('sum formal charges over all fragments', () => {
    expect(formalCharge(graph('CC(=O)[O-]'))).toBe(-1);
    expect(formalCharge(graph('[N-]=[N+]=NC'))).toBe(0);
    expect(formalCharge(graph('[Ca+2].[Cl-]'))).toBe(1);
  });

  it("count the rings of RDKit's symmetrised SSSR (cubane has 6, its SSSR 5)", () => {
    expect(numRings(graph('C12C3C4C1C5C2C3C45'))).toBe(6);
  });

  it('count as aromatic only rings whose bonds are all aromatic (biphenylene: 2 of 3)', () => {
    expect(numRings(graph('c1ccc2c(c1)-c1ccccc1-2'))).toBe(3);
    expect(numAromaticRings(graph('c1ccc2c(c1)-c1ccccc1-2'))).toBe(2);
    expect(numAromaticRings(graph('c1ccc2ccccc2c1'))).toBe(2);
  });

  it('take a carbon as sp3 when its total degree is 4, whatever its charge, radicals or hybridisation', () => {
    expect(fractionCSP3(graph('CC'))).toBe(1);
    expect(fractionCSP3(graph('[CH3-]'))).toBe(0);
    expect(fractionCSP3(graph('[CH3+]'))).toBe(0);
    expect(fractionCSP3(graph('C[C]C'))).toBe(2 / 3);
    expect(fractionCSP3(graph('C=C=C'))).toBe(0);
    expect(fractionCSP3(graph('C->[Fe]'))).toBe(0);
    expect(fractionCSP3(graph('[H]C([H])([H])[H]'))).toBe(1);
  });

  it('give fraction Csp3 0 without carbon', () => {
    expect(fractionCSP3(graph('[Fe]'))).toBe(0);
    expect(fractionCSP3(graph('O'))).toBe(0);
  });
});
