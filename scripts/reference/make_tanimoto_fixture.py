"""Generates test/fixtures/tanimoto-reference.json: RDKit reference values for the search kernel.

Molecules: the first 300 parseable entries of PatWalters/datafiles chembl_drugs.smi (ChEMBL
approved drugs; ChEMBL data is CC BY-SA 3.0). For each: the Morgan radius-2 2048-bit fingerprint
as its sorted on-bit indices (bit i is byte i>>3, bit i&7 of RDKit's byte layout, the bytes of
MinimalLib's get_morgan_fp_as_uint8array) and its popcount; for the first 12 molecules as queries, the
BulkTanimotoSimilarity against all 300 (float64, as RDKit returns them).

Run: .tools/pyoff/bin/python scripts/reference/make_tanimoto_fixture.py /path/to/chembl_drugs.smi
"""
import json
import sys

import rdkit
from rdkit import Chem, DataStructs, RDLogger
from rdkit.Chem import rdFingerprintGenerator

RDLogger.DisableLog("rdApp.*")
src = sys.argv[1] if len(sys.argv) > 1 else "/work/shared/data/catalog/patwalters_chembl_drugs.smi"
gen = rdFingerprintGenerator.GetMorganGenerator(radius=2, fpSize=2048)
mols = []
with open(src) as fh:
    for line in fh:
        parts = line.split()
        if len(parts) < 2:
            continue
        mol = Chem.MolFromSmiles(parts[0])
        if mol is None or mol.GetNumAtoms() == 0:
            continue
        mols.append((parts[0], parts[1], gen.GetFingerprint(mol)))
        if len(mols) == 300:
            break

fps = [m[2] for m in mols]
out = {
    "source": "PatWalters/datafiles chembl_drugs.smi (ChEMBL approved drugs, CC BY-SA 3.0), first 300 parseable",
    "rdkit_version": rdkit.__version__,
    "fingerprint": {"kind": "morgan", "radius": 2, "nBits": 2048},
    "molecules": [
        {"smiles": s, "id": i, "on_bits": list(fp.GetOnBits()), "popcount": fp.GetNumOnBits()}
        for s, i, fp in mols
    ],
    "queries": [
        {"index": q, "similarities": list(DataStructs.BulkTanimotoSimilarity(fps[q], fps))} for q in range(12)
    ],
}
with open("test/fixtures/tanimoto-reference.json", "w") as fh:
    json.dump(out, fh, separators=(",", ":"))
print(len(mols), "molecules")
