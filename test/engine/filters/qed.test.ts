import { beforeAll, describe, expect, it } from 'vitest';
import { getRDKit, withMol, type RDKitModule } from '../../../engine/chem/index.ts';
import {
  compileQedQueries,
  qedFromProperties,
  qedProperties,
  QED_PROPERTY_NAMES,
  type QedQueries,
} from '../../../engine/filters/index.ts';
import { loadFilterReference } from './reference.ts';

const ref = loadFilterReference();
let rd: RDKitModule;
let q: QedQueries;
beforeAll(async () => {
  rd = await getRDKit();
  q = compileQedQueries(rd);
});

describe('QED (rdkit.Chem.QED.qed, WEIGHT_MEAN)', () => {
  it('the fixture is from the same RDKit release as MinimalLib', () => {
    expect(rd.version()).toBe(ref.rdkit_version);
    expect(ref.molecules.length).toBeGreaterThan(300);
  });

  it('reproduces all 8 QED properties of Python RDKit exactly', () => {
    for (const m of ref.molecules) {
      const p = withMol(rd, m.input, (mol) => qedProperties(mol, q))!;
      for (const name of QED_PROPERTY_NAMES)
        expect({ smiles: m.input, name, v: p[name] }).toEqual({
          smiles: m.input,
          name,
          v: expect.closeTo(m.qed_properties[name], 9),
        });
    }
  });

  it('reproduces QED of Python RDKit to 1e-6', () => {
    let maxErr = 0;
    for (const m of ref.molecules) {
      const v = withMol(rd, m.input, (mol) => qedFromProperties(qedProperties(mol, q)))!;
      maxErr = Math.max(maxErr, Math.abs(v - m.qed));
    }
    expect(maxErr).toBeLessThan(1e-6);
  });

  it('gives the QED of the RDKit doctests from Bickerton et al.', () => {
    const v = (s: string) => withMol(rd, s, (mol) => qedFromProperties(qedProperties(mol, q)))!;
    expect(Math.floor(v('N=C(CCSCc1csc(N=C(N)N)n1)NS(N)(=O)=O') * 1000)).toBe(253);
    expect(Math.floor(v('CNC(=NCCSCc1nc[nH]c1C)NC#N') * 1000)).toBe(234); // the doctest prints 0.234...
  });

  it('counts aromatic rings the QED way, not as Lipinski.NumAromaticRings', () => {
    // QED.py notes this molecule gets AROM 2 where NumAromaticRings would say 0.
    const m = ref.molecules.find((x) => x.input === 'CC(C)C1=CC2=C(C)C=CC2=C(C)C=C1')!;
    const p = withMol(rd, m.input, (mol) => qedProperties(mol, q))!;
    expect(p.AROM).toBe(m.qed_properties.AROM);
  });

  it('accepts stored catalog descriptors in place of RDKit descriptors with the same result', () => {
    for (const m of ref.molecules.slice(0, 60)) {
      const structural = withMol(rd, m.input, (mol) => qedProperties(mol, q, true))!;
      const { MW, ALOGP, HBD, PSA, ROTB } = m.qed_properties;
      expect(qedFromProperties({ ...structural, MW, ALOGP, HBD, PSA, ROTB })).toBeCloseTo(m.qed, 9);
    }
  });
});
