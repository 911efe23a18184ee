import { describe, expect, it } from 'vitest';
import { getRDKit } from '../../../../engine/chem/rdkit.ts';
import { graphFromRDKitJson } from '../../../../engine/chem/graph.ts';
import { MORGAN_DETAILS } from '../../../../engine/chem/fingerprint.ts';
import { morganCounts } from '../../../../engine/analysis/embed/morgan-counts.ts';
import { ref } from '../support/reference.ts';

async function countsOf(smiles: string): Promise<{ counts: Uint16Array; bits: Uint8Array }> {
  const rd = await getRDKit();
  const mol = rd.get_mol(smiles)!;
  try {
    return {
      counts: morganCounts(graphFromRDKitJson(mol.get_json())),
      bits: new Uint8Array(mol.get_morgan_fp_as_uint8array(MORGAN_DETAILS) as Uint8Array),
    };
  } finally {
    mol.delete();
  }
}

describe('Morgan count fingerprints from the molecule graph', () => {
  it('equal RDKit GetCountFingerprintAsNumPy for drugs and edge cases (isotopes, charges, salts, H atoms, dative bonds)', async () => {
    const wrong: string[] = [];
    for (const m of ref.morgan_counts) {
      const { counts } = await countsOf(m.smiles);
      const got: Record<string, number> = {};
      counts.forEach((c, i) => {
        if (c) got[String(i)] = c;
      });
      if (JSON.stringify(got) !== JSON.stringify(m.counts)) wrong.push(m.smiles);
    }
    expect(ref.morgan_counts.length).toBe(166);
    expect(wrong).toEqual([]);
  });

  it("set exactly MinimalLib's fingerprint bits on every reference molecule", async () => {
    let mismatched = 0;
    for (const s of [...ref.set_a.smiles, ...ref.set_b.smiles]) {
      const { counts, bits } = await countsOf(s);
      for (let i = 0; i < 2048; i++)
        if ((counts[i] > 0 ? 1 : 0) !== ((bits[i >> 3] >> (i & 7)) & 1)) mismatched++;
    }
    expect(mismatched).toBe(0);
  });

  it('count repeated environments: the six equivalent atoms of benzene', async () => {
    const { counts } = await countsOf('c1ccccc1');
    // one code per radius (0, 1, 2) shared by the six atoms; each atom's radius-2 environment
    // covers 4 of the 6 ring bonds, a different set per atom, so none is dropped as a duplicate
    expect(Array.from(counts).filter((c) => c > 0)).toEqual([6, 6, 6]);
    const { counts: ethane } = await countsOf('CC');
    // two atoms, same code at radius 0 and 1; at radius 1 both see the same single bond: one kept
    expect(
      Array.from(ethane)
        .filter((c) => c > 0)
        .sort(),
    ).toEqual([1, 2]);
  });
});
