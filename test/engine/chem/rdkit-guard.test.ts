// The parse guard of engine/chem/rdkit.ts: structures with more atoms than RDKit's WebAssembly
// stack can take never reach RDKit. Before it, a 900-carbon chain trapped in the parse ("memory
// access out of bounds") and every later RDKit call of the thread failed.
import { beforeAll, describe, expect, it } from 'vitest';
import { getRDKit, MAX_STRUCTURE_ATOMS, atomTokens, type RDKitModule } from '../../../engine/chem/rdkit.ts';
import { parseMolecule } from '../../../engine/chem/molecule.ts';

let rd: RDKitModule;
beforeAll(async () => {
  rd = await getRDKit();
});

describe('RDKit parse guard', () => {
  it('counts written atoms, a bracket atom once', () => {
    expect(atomTokens('CC(=O)Oc1ccccc1C(=O)O')).toBe(13);
    expect(atomTokens('[NH4+].[Cl-]')).toBe(2);
    expect(atomTokens('[#6]~[C,N]Br')).toBe(3);
  });

  it('refuses a structure over the limit with the reason, and RDKit keeps working', () => {
    const chain = 'C'.repeat(900);
    const parsed = parseMolecule(rd, chain);
    expect(parsed).toEqual({ error: expect.stringMatching(/more than 500 atoms \(900\)/) });
    expect(rd.get_mol(chain)).toBeNull();
    expect(rd.get_qmol(chain)).toBeNull();
    const after = rd.get_mol('CC(=O)Oc1ccccc1C(=O)O')!;
    expect(after.get_smiles()).toBe('CC(=O)Oc1ccccc1C(=O)O');
    after.delete();
  });

  it('lets a structure at the limit through every step a search takes', () => {
    const chain = 'C'.repeat(MAX_STRUCTURE_ATOMS);
    const parsed = parseMolecule(rd, chain);
    expect('error' in parsed).toBe(false);
    const mol = rd.get_mol(chain, JSON.stringify({}))!;
    const q = rd.get_qmol(chain)!;
    expect(JSON.parse(mol.get_substruct_match(q)).atoms).toHaveLength(MAX_STRUCTURE_ATOMS);
    expect(mol.get_svg().length).toBeGreaterThan(0);
    mol.delete();
    q.delete();
  });
});
