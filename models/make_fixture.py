"""Writes the feature-parity fixture used by test/engine/admet/features.test.ts.

200 molecules drawn (fixed seed) from the training data, so they cover salts, charges, stereo
and large structures the way real inputs do; plus a few hand-picked edge cases.
"""
from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd
from rdkit import Chem

sys.path.insert(0, str(Path(__file__).parent))
import features as F  # noqa: E402

ROOT = Path(__file__).resolve().parent
OUT = ROOT.parent / "test" / "engine" / "admet" / "fixtures" / "features-sample.json"
EXTRA = ["C", "[Na+].[Cl-]", "C[C@H](N)C(=O)O", "c1ccc2c(c1)[nH]c1ccccc12", "O=C([O-])c1ccccc1.[K+]",
         "CC1(C)C2CCC1(C)C(=O)C2", "[2H]C([2H])([2H])Oc1ccccc1", "FC(F)(F)c1ccc(cc1)S(=O)(=O)N"]


def sample_smiles(n: int = 192, seed: int = 7) -> list[str]:
    files = sorted(p for p in (ROOT / "data").glob("*.csv.gz") if not p.name.startswith("admet_ai"))
    rng = np.random.default_rng(seed)
    per = -(-n // len(files))
    out: list[str] = []
    for p in files:
        df = pd.read_csv(p)
        idx = rng.choice(len(df), size=per, replace=False)
        out.extend(df["Drug"].iloc[sorted(idx)].tolist())
    return out[:n]


def main() -> None:
    smiles = sample_smiles() + EXTRA
    x, ok = F.featurize_smiles(smiles)
    rows = []
    nd = len(F.DESCRIPTOR_NAMES)
    for s, v, good in zip(smiles, x, ok):
        if not good:
            continue
        mol = Chem.MolFromSmiles(s)
        rows.append({"smiles": s, "on_bits": np.flatnonzero(v[: F.N_BITS]).tolist(), "descriptors": F.descriptors(mol),
                     "crippen_counts": [int(c) for c in v[F.N_BITS + nd:]]})
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps({"feature_spec_sha256": F.spec_hash(), "rdkit": F.SPEC["rdkit_version"], "molecules": rows}))
    print(f"wrote {len(rows)} molecules to {OUT}")


if __name__ == "__main__":
    main()
