"""Generates test/fixtures/chem3d-reference.json: what Python RDKit itself gives for the 3D contract.

Written from RDKit's documented API alone (it does not import chem3d/), so the chem3d worker's
results are checked against RDKit, not against themselves. Per SMILES: the largest fragment
(most heavy atoms, first on ties), Chem.AddHs, rdDistGeom.ETKDGv3() with randomSeed=42,
pruneRmsThresh=0.5, numThreads=1, EmbedMultipleConfs(mol, 10), Gasteiger charges
(AllChem.ComputeGasteigerCharges). Coordinates and charges are rounded through float32, the
contract's type. SMILES are canonicalised first (as catalogs store them). Molecules: a few ChEMBL drugs of test/fixtures/v2/chembl-drugs.smi (ChEMBL,
CC BY-SA 3.0), a salt, a rigid and a flexible one.

Run:  .tools/chem3d/bin/python scripts/reference/make_chem3d_fixture.py   (venv of chem3d/requirements.txt)
"""

import json
from pathlib import Path

import numpy as np
from rdkit import Chem, rdBase
from rdkit.Chem import AllChem, rdDistGeom

ROOT = Path(__file__).resolve().parents[2]
SMILES = [
    "CC(=O)Oc1ccccc1C(=O)O",  # aspirin
    "Cn1cnc2c1c(=O)n(C)c(=O)n2C",  # caffeine: rigid, one conformer after pruning
    "CCC(C)C1(CC)C(=O)[N-]C(=O)NC1=O.[Na+]",  # a salt: the counter-ion is dropped
    "CC(C)Cc1ccc(C(C)C(=O)O)cc1",  # ibuprofen
    "CCN(CC)CCNC(=O)c1ccc(N)cc1",  # procainamide: flexible
]


def reference(raw: str) -> dict:
    # Canonical SMILES, as catalogs store them: the same string gives the same atom order.
    smi = Chem.MolToSmiles(Chem.MolFromSmiles(raw))
    mol = Chem.MolFromSmiles(smi)
    frags = Chem.GetMolFrags(mol, asMols=True)
    best = frags[0]
    for f in frags[1:]:
        if f.GetNumHeavyAtoms() > best.GetNumHeavyAtoms():
            best = f
    mh = Chem.AddHs(best)
    params = rdDistGeom.ETKDGv3()
    params.randomSeed = 42
    params.pruneRmsThresh = 0.5
    params.numThreads = 1
    ids = list(rdDistGeom.EmbedMultipleConfs(mh, 10, params))
    AllChem.ComputeGasteigerCharges(mh)
    charges = np.array([a.GetDoubleProp("_GasteigerCharge") for a in mh.GetAtoms()], dtype=np.float32)
    coords = np.stack([mh.GetConformer(i).GetPositions() for i in ids]).astype(np.float32)
    return {
        "smiles": smi,
        "atomCount": mh.GetNumAtoms(),
        "confCount": len(ids),
        "elements": [a.GetAtomicNum() for a in mh.GetAtoms()],
        "charges": [float(x) for x in charges],
        "coords": [float(x) for x in coords.reshape(-1)],
    }


def main() -> None:
    out = {
        "rdkit_version": rdBase.rdkitVersion,
        "params": {"confs": 10, "seed": 42, "prune_rms": 0.5, "method": "ETKDGv3"},
        "molecules": [reference(s) for s in SMILES],
    }
    path = ROOT / "test" / "fixtures" / "chem3d-reference.json"
    path.write_text(json.dumps(out, separators=(",", ":")) + "\n")
    print(f"wrote {path}: {[m['confCount'] for m in out['molecules']]} conformers")


if __name__ == "__main__":
    main()
