import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { CRIPPEN_LABELS } from '../../../engine/chem/crippen.ts';
import { describeMolecule } from '../../../engine/chem/graph-descriptors.ts';
import { getRDKit, type RDKitModule } from '../../../engine/chem/rdkit.ts';
import {
  ADMET_CRIPPEN_OFFSET,
  ADMET_DESCRIPTOR_NAMES,
  ADMET_FEATURE_LENGTH,
  ADMET_FEATURE_SPEC_SHA256,
  ADMET_N_BITS,
  computeAdmetFeatures,
  writeAdmetFeatures,
} from '../../../engine/admet/features.ts';

// Made by models/make_fixture.py with RDKit 2026.9.1 (Python): Morgan on-bits, the 14 descriptors
// (float64, models/features.py FUNCS) and the Crippen type counts for 200 molecules from the TDC
// training data plus edge cases.
interface FixtureMolecule {
  smiles: string;
  on_bits: number[];
  descriptors: number[];
  crippen_counts: number[];
}
const fixture = JSON.parse(
  readFileSync(new URL('./fixtures/features-sample.json', import.meta.url), 'utf8'),
) as {
  feature_spec_sha256: string;
  molecules: FixtureMolecule[];
};

let rd: RDKitModule;
beforeAll(async () => {
  rd = await getRDKit();
});

describe('ADMET features', () => {
  it('were made from the same features.json as the engine reads', () => {
    expect(fixture.feature_spec_sha256).toBe(ADMET_FEATURE_SPEC_SHA256);
    expect(ADMET_FEATURE_LENGTH).toBe(2048 + 14 + CRIPPEN_LABELS.length);
  });

  it('equal the Python features on 200 sample molecules: exact bits, descriptors and Crippen counts equal after float32 rounding', () => {
    const { features, ok } = computeAdmetFeatures(
      rd,
      fixture.molecules.map((m) => m.smiles),
    );
    const mismatches: string[] = [];
    fixture.molecules.forEach((m, i) => {
      expect(ok[i], m.smiles).toBe(1);
      const row = features.subarray(i * ADMET_FEATURE_LENGTH, (i + 1) * ADMET_FEATURE_LENGTH);
      const bits: number[] = [];
      for (let b = 0; b < ADMET_N_BITS; b++) if (row[b] === 1) bits.push(b);
      if (bits.join(',') !== m.on_bits.join(',')) mismatches.push(`${m.smiles}: bits`);
      m.descriptors.forEach((want, j) => {
        const got = row[ADMET_N_BITS + j];
        if (got !== Math.fround(want))
          mismatches.push(`${m.smiles}: ${ADMET_DESCRIPTOR_NAMES[j]} ${got} != ${want}`);
      });
      const counts = [...row.subarray(ADMET_CRIPPEN_OFFSET)];
      if (counts.join(',') !== m.crippen_counts.join(','))
        mismatches.push(`${m.smiles}: Crippen counts ${counts} != ${m.crippen_counts}`);
    });
    expect(mismatches).toEqual([]);
  });

  it('marks unparsable SMILES as not ok and leaves their row zero', () => {
    const { features, ok } = computeAdmetFeatures(rd, ['CCO', 'C1CC(', 'c1ccccc1']);
    expect([...ok]).toEqual([1, 0, 1]);
    const bad = features.subarray(ADMET_FEATURE_LENGTH, 2 * ADMET_FEATURE_LENGTH);
    expect(bad.every((v) => v === 0)).toBe(true);
  });

  it('unpacks the fingerprint least-significant bit first, as MinimalLib packs it', () => {
    const mol = rd.get_mol('CCO')!;
    const fp = new Uint8Array(ADMET_N_BITS / 8);
    fp[0] = 0b0000_0101; // bits 0 and 2
    fp[255] = 0b1000_0000; // bit 2047
    const out = new Float32Array(2 * ADMET_FEATURE_LENGTH);
    const d = describeMolecule(mol);
    writeAdmetFeatures(fp, d, out, 1);
    const row = out.subarray(ADMET_FEATURE_LENGTH);
    expect([row[0], row[1], row[2], row[2047]]).toEqual([1, 0, 1, 1]);
    expect(row[ADMET_N_BITS + ADMET_DESCRIPTOR_NAMES.indexOf('heavy_atoms')]).toBe(3);
    expect(row[ADMET_CRIPPEN_OFFSET + CRIPPEN_LABELS.indexOf('H2')]).toBe(1); // the alcohol H of ethanol
    expect(out.subarray(0, ADMET_FEATURE_LENGTH).every((v) => v === 0)).toBe(true);
    mol.delete();
  });
});
