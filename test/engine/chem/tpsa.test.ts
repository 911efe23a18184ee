import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { MolGraph } from '../../../engine/chem/graph.ts';
import { getRDKit, type RDKitModule } from '../../../engine/chem/rdkit.ts';
import { tpsa } from '../../../engine/chem/tpsa.ts';
import { graphOf } from '../../support/mol-graph.ts';

// Python RDKit values: test/fixtures/make_graph_descriptors_reference.py writes this fixture.
const fixture = JSON.parse(
  readFileSync(new URL('../../fixtures/graph-descriptors-reference.json', import.meta.url), 'utf8'),
) as {
  rdkit_version: string;
  columns: string[];
  molecules: (string | number)[][];
};
const TPSA = fixture.columns.indexOf('tpsa');

let rd: RDKitModule;
beforeAll(async () => {
  rd = await getRDKit();
});

const graph = (smiles: string): MolGraph => graphOf(rd, smiles);

describe('tpsa equals Python rdMolDescriptors.CalcTPSA', () => {
  it('uses the RDKit version of the fixture', () => {
    expect(rd.version()).toBe(fixture.rdkit_version);
  });

  it('gives the same double as Python for every fixture molecule', () => {
    const mismatches: string[] = [];
    for (const row of fixture.molecules) {
      const got = tpsa(graph(row[0] as string));
      if (got !== row[TPSA]) mismatches.push(`${row[0]}: ${got} != ${row[TPSA]}`);
    }
    expect(mismatches).toEqual([]);
    expect(fixture.molecules.length).toBeGreaterThan(1400);
  });

  it('gives an NH in a three-membered ring 21.94 and one outside rings 12.03', () => {
    expect(tpsa(graph('C1CN1'))).toBe(21.94);
    expect(tpsa(graph('CNC'))).toBe(12.03);
    expect(tpsa(graph('CN1CC1'))).toBe(3.01);
    expect(tpsa(graph('C1CO1'))).toBe(12.53);
  });

  it('counts hydrogen atoms kept in the graph as hydrogens, not as neighbours', () => {
    expect(tpsa(graph('[2H]N([2H])C'))).toBe(tpsa(graph('CN')));
  });

  it("uses RDKit's generic estimate for environments outside Ertl's table", () => {
    expect(tpsa(graph('C=[N+]=C'))).toBe(30.5 - 2 * 8.2);
    // A dative bond makes a neighbour but no single bond: NH3 on a metal falls outside the table.
    expect(tpsa(graph('N->[Pt]'))).toBe(26.8);
  });

  it('ignores sulfur and phosphorus (includeSandP is false by default)', () => {
    expect(tpsa(graph('CS(C)(=O)=O'))).toBe(2 * 17.07);
    expect(tpsa(graph('CP(C)C'))).toBe(0);
  });
});
