import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { MolGraph } from '../../../engine/chem/graph.ts';
import { getRDKit, type RDKitModule } from '../../../engine/chem/rdkit.ts';
import { atomMass, averageMolWeight } from '../../../engine/chem/weight.ts';
import { graphOf } from '../../support/mol-graph.ts';

// Python RDKit values: test/fixtures/make_graph_descriptors_reference.py writes this fixture.
const fixture = JSON.parse(
  readFileSync(new URL('../../fixtures/graph-descriptors-reference.json', import.meta.url), 'utf8'),
) as {
  columns: string[];
  molecules: (string | number)[][];
};
const MOL_WT = fixture.columns.indexOf('mol_wt');

let rd: RDKitModule;
beforeAll(async () => {
  rd = await getRDKit();
});

const graph = (smiles: string): MolGraph => graphOf(rd, smiles);

describe('averageMolWeight equals Python Descriptors.MolWt', () => {
  it('gives the same double as Python for every fixture molecule', () => {
    const mismatches: string[] = [];
    for (const row of fixture.molecules) {
      const got = averageMolWeight(graph(row[0] as string));
      if (got !== row[MOL_WT]) mismatches.push(`${row[0]}: ${got} != ${row[MOL_WT]}`);
    }
    expect(mismatches).toEqual([]);
  });

  it("reproduces RDKit's rounding by summing in its order (cubane is not 104.152)", () => {
    expect(averageMolWeight(graph('C12C3C4C1C5C2C3C45'))).toBe(104.15199999999997);
  });

  it('weighs isotope-labelled atoms with their isotope mass, hydrogen atoms included', () => {
    expect(averageMolWeight(graph('[13CH4]'))).toBe(17.03535484);
    expect(averageMolWeight(graph('[2H]C'))).toBe(17.049101778);
  });

  it('weighs an isotope RDKit does not know as its mass number, and dummy atoms as 0', () => {
    expect(averageMolWeight(graph('[200CH4]'))).toBe(204.032);
    expect(averageMolWeight(graph('[5*]C'))).toBe(15.035);
    expect(atomMass(6, 200)).toBe(200);
    expect(atomMass(0, 5)).toBe(0);
    expect(atomMass(6, 0)).toBe(12.011);
  });
});
