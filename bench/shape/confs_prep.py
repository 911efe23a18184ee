"""Conformer count of the first pass against the full recipe: the same drugs embedded with 3 and with
10 conformers (chem3d/embed.py, seed 42, pruned at 0.5 A), for bench/shape/confs.ts.

    python bench/shape/confs_prep.py catalogs/sources/chembl_drugs.smi.gz OUT.json.gz [N]
"""
import gzip
import json
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "chem3d"))
from rdkit import RDLogger  # noqa: E402

from embed import EmbedError, embed_mol  # noqa: E402

RDLogger.DisableLog("rdApp.*")


def rec(e):
    return {"atoms": e.atom_count, "confs": e.conf_count, "elements": list(e.elements),
            "charges": [round(v, 5) for v in memoryview(e.charges).cast("f")],
            "coords": [round(v, 3) for v in memoryview(e.coords).cast("f")]}


def main():
    src, out = sys.argv[1], sys.argv[2]
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 150
    with gzip.open(src, "rt") as f:
        smiles = [line.split()[0] for line in f if line.strip()]
    rng = random.Random(11)
    mols = []
    for smi in rng.sample(smiles, len(smiles)):
        try:
            mols.append({"smiles": smi, "c3": rec(embed_mol(smi, confs=3)), "c10": rec(embed_mol(smi, confs=10))})
        except EmbedError:
            continue
        if len(mols) == n:
            break
    with gzip.open(out, "wt") as f:
        json.dump({"molecules": mols}, f)
    print("wrote", len(mols))


if __name__ == "__main__":
    main()
