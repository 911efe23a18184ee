// markRingAtoms: ring membership from the graph alone (bridges), as RDKit's ring info gives it.
import { beforeAll, describe, expect, it } from 'vitest';
import { getRDKit, type RDKitModule } from '../../../engine/chem/rdkit.ts';
import { graphFromRDKitJson, markRingAtoms } from '../../../engine/chem/graph.ts';

let rd: RDKitModule;
beforeAll(async () => {
  rd = await getRDKit();
});

describe('markRingAtoms', () => {
  const molecules = [
    'c1ccc2[nH]ccc2c1',
    'O=C1C=CC(=O)C=C1',
    'C1CC2CCC1CC2',
    'CC(=O)[O-].[NH4+]',
    'C#CC1=CN=CC1',
  ];
  it("marks ring atoms as RDKit's ring info does", () => {
    for (const smiles of [...molecules, 'C1CC1CCC1CC1', 'c1ccccc1-c1ccccc1', 'C1CCC2(CC1)CCCC2']) {
      const mol = rd.get_mol(smiles)!;
      const g = graphFromRDKitJson(mol.get_json());
      const want = Array.from(g.atomRings, (v) => (v > 0 ? 1 : 0));
      markRingAtoms(g);
      expect(Array.from(g.atomRings), smiles).toEqual(want);
      mol.delete();
    }
  });
});
