import { beforeAll, describe, expect, it } from 'vitest';
import { getRDKit, withMol, type RDKitModule } from '../../../engine/chem/index.ts';
import {
  compilePains,
  lipinskiPass,
  lipinskiViolations,
  loadPainsPatterns,
  type PainsMatcher,
} from '../../../engine/filters/index.ts';
import { loadFilterReference } from './reference.ts';

const ref = loadFilterReference();
let rd: RDKitModule;
let pains: PainsMatcher;
beforeAll(async () => {
  rd = await getRDKit();
  pains = compilePains(rd);
}, 60_000);

describe('PAINS (wehi_pains.csv, hydrogens merged)', () => {
  it('loads the 480 patterns from the repo copy of the csv', () => {
    const p = loadPainsPatterns();
    expect(p).toHaveLength(480);
    expect(new Set(p.map((x) => x.name)).size).toBe(480);
    expect(pains.size).toBe(480);
  });

  it('matches exactly the patterns Python RDKit matches, molecule by molecule', () => {
    expect(ref.molecules.filter((m) => m.pains.length).length).toBeGreaterThan(50);
    for (const m of ref.molecules)
      expect({ smiles: m.input, hits: withMol(rd, m.input, (mol) => pains.matches(mol)) }).toEqual({
        smiles: m.input,
        hits: m.pains,
      });
  });

  it('flags the same molecules as RDKit FilterCatalog PAINS', () => {
    for (const m of ref.molecules)
      expect(withMol(rd, m.input, (mol) => pains.any(mol))).toBe(m.pains_filter_catalog);
  });
});

describe('Lipinski rule of five', () => {
  it('passes exactly the molecules the Python reference passes (at most one violation)', () => {
    expect(ref.molecules.filter((m) => !m.lipinski.pass).length).toBeGreaterThan(20);
    for (const m of ref.molecules) {
      const d = {
        molecular_weight: m.lipinski.mw,
        clogp: m.lipinski.logp,
        h_bond_donor: m.lipinski.hbd,
        h_bond_acceptors: m.lipinski.hba,
      };
      expect({ smiles: m.input, v: lipinskiViolations(d), pass: lipinskiPass(d) }).toEqual({
        smiles: m.input,
        v: m.lipinski.violations,
        pass: m.lipinski.pass,
      });
    }
  });

  it('treats the limits as inclusive and a missing value as a violation', () => {
    expect(lipinskiPass({ molecular_weight: 500, clogp: 5, h_bond_donor: 5, h_bond_acceptors: 10 })).toBe(
      true,
    );
    expect(
      lipinskiViolations({ molecular_weight: 500.01, clogp: 5.01, h_bond_donor: 5, h_bond_acceptors: 10 }),
    ).toBe(2);
    expect(
      lipinskiViolations({ molecular_weight: NaN, clogp: 1, h_bond_donor: 1, h_bond_acceptors: 1 }),
    ).toBe(1);
  });
});
