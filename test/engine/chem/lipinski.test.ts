import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { graphFromRDKitJson, type MolGraph } from '../../../engine/chem/graph.ts';
import { numHBA, numHBD, numRotatableBonds } from '../../../engine/chem/lipinski.ts';
import { getRDKit, type RDKitModule } from '../../../engine/chem/rdkit.ts';
import { graphOf } from '../../support/mol-graph.ts';

// Python RDKit values: models/crippen_lipinski_reference.py writes this fixture.
const fixture = JSON.parse(
  readFileSync(new URL('../../fixtures/crippen-lipinski-reference.json', import.meta.url), 'utf8'),
) as {
  rdkit_version: string;
  molecules: { smiles: string; hbd: number; hba: number; rot: number }[];
};

let rd: RDKitModule;
beforeAll(async () => {
  rd = await getRDKit();
});

const graph = (smiles: string): MolGraph => graphOf(rd, smiles);

describe('numHBD / numHBA / numRotatableBonds equal Python rdMolDescriptors', () => {
  it('gives the same three counts as CalcNumHBD, CalcNumHBA and CalcNumRotatableBonds for every fixture molecule', () => {
    expect(rd.version()).toBe(fixture.rdkit_version);
    const mismatches: string[] = [];
    for (const m of fixture.molecules) {
      const g = graph(m.smiles);
      const got = [numHBD(g), numHBA(g), numRotatableBonds(g)];
      if (got.join() !== [m.hbd, m.hba, m.rot].join())
        mismatches.push(`${m.smiles}: ${got} != ${[m.hbd, m.hba, m.rot]}`);
    }
    expect(mismatches).toEqual([]);
    expect(fixture.molecules.length).toBeGreaterThan(1400);
  });

  it("equals MinimalLib's get_descriptors() NumHBD, NumHBA and NumRotatableBonds", () => {
    for (const s of [
      'CC(=O)Nc1ccc(O)cc1',
      'Cn1ccnc1',
      'OC(=O)CCN',
      'CC(C)(C)c1ccc(C(F)(F)F)cc1',
      'C[N+](C)(C)CCS',
    ]) {
      const m = rd.get_mol(s)!;
      const d = JSON.parse(m.get_descriptors()) as Record<string, number>;
      const g = graphFromRDKitJson(m.get_json());
      m.delete();
      expect([numHBD(g), numHBA(g), numRotatableBonds(g)]).toEqual([d.NumHBD, d.NumHBA, d.NumRotatableBonds]);
    }
  });

  it('takes aromatic n as an acceptor only with two connections', () => {
    expect(numHBA(graph('Cn1ccnc1'))).toBe(1);
    expect(numHBA(graph('c1ccncc1'))).toBe(1);
    expect(numHBA(graph('C[n+]1ccccc1'))).toBe(0);
  });

  it('does not count an acid OH or an amide N as acceptors, but counts the carbonyl O', () => {
    expect(numHBA(graph('CC(=O)O'))).toBe(1);
    expect(numHBA(graph('CCO'))).toBe(1);
    expect(numHBA(graph('CC(=O)N'))).toBe(1);
    expect(numHBD(graph('CC(=O)N'))).toBe(1);
  });

  it('counts donors on N, O, S and aromatic nH, and a charged N-H only at valence 4', () => {
    expect(numHBD(graph('c1cc[nH]c1'))).toBe(1);
    expect(numHBD(graph('CS'))).toBe(1);
    expect(numHBD(graph('C[NH3+]'))).toBe(1);
    expect(numHBD(graph('C[N+](C)(C)C'))).toBe(0);
  });

  it('excludes bonds to terminal atoms, triple bonds, CF3 / tBu / CH3 ends, ring bonds and amide C-N', () => {
    expect(numRotatableBonds(graph('CCCC'))).toBe(1);
    expect(numRotatableBonds(graph('CCC#N'))).toBe(0);
    expect(numRotatableBonds(graph('CCCC#N'))).toBe(1);
    expect(numRotatableBonds(graph('CC(C)c1ccccc1'))).toBe(1);
    expect(numRotatableBonds(graph('FC(F)(F)c1ccccc1'))).toBe(0);
    expect(numRotatableBonds(graph('CC(C)(C)c1ccccc1'))).toBe(0);
    expect(numRotatableBonds(graph('C1CCCCC1C1CCCCC1'))).toBe(1);
    expect(numRotatableBonds(graph('CCNC(C)=O'))).toBe(1);
  });

  it('counts a non-ring aromatic bond between rings (biphenyl) once', () => {
    expect(numRotatableBonds(graph('c1ccccc1-c1ccccc1'))).toBe(1);
  });

  it('treats bonds of macrocycles whose ring set is huge as ring bonds (cyclodextrin)', () => {
    const gamma =
      'OCC1OC2OC3C(CO)OC(OC4C(CO)OC(OC5C(CO)OC(OC6C(CO)OC(OC7C(CO)OC(OC8C(CO)OC(OC9C(CO)OC(OC1C(O)C2O)C(O)C9O)C(O)C8O)C(O)C7O)C(O)C6O)C(O)C5O)C(O)C4O)C(O)C3O';
    expect(numRotatableBonds(graph(gamma))).toBe(8);
  });
});
