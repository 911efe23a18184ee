"""Builds test/fixtures/synthons/idorsia-query-scores.json.gz: the exact Morgan Tanimoto (r2, 2048
bits) of every product of RDKit's full enumeration of the Idorsia toy space
(idorsia_toy_space_enum.smi.gz, same line order) to a few queries, the ground truth for the budgeted
top-k test (test/engine/synthons/similarity-budget.test.ts): whatever products a search cut short
returns, each must carry RDKit's score of that product.

Run with RDKit 2026.9.1 (the version of @rdkit/rdkit):
    .tools/shapebench/bin/python scripts/reference/make_synthon_budget_fixture.py
"""
import gzip
import json
from pathlib import Path

import rdkit
from rdkit import Chem, DataStructs
from rdkit.Chem import rdFingerprintGenerator

ROOT = Path(__file__).resolve().parents[2]
ENUM = ROOT / 'test' / 'fixtures' / 'synthons' / 'idorsia_toy_space_enum.smi.gz'
OUT = ROOT / 'test' / 'fixtures' / 'synthons' / 'idorsia-query-scores.json.gz'
GEN = rdFingerprintGenerator.GetMorganGenerator(radius=2, fpSize=2048)
# Aspirin (the user-trial query, dissimilar to the toy space) and celecoxib.
QUERIES = ['CC(=O)Oc1ccccc1C(=O)O', 'Cc1ccc(-c2cc(C(F)(F)F)nn2-c2ccc(S(N)(=O)=O)cc2)cc1']


def main():
    fps = []
    with gzip.open(ENUM, 'rt') as f:
        for line in f:
            fps.append(GEN.GetFingerprint(Chem.MolFromSmiles(line.split()[0])))
    entries = []
    for q in QUERIES:
        qfp = GEN.GetFingerprint(Chem.MolFromSmiles(q))
        entries.append({'query': q, 'scores': [round(s, 6) for s in DataStructs.BulkTanimotoSimilarity(qfp, fps)]})
    with gzip.open(OUT, 'wt') as f:
        json.dump({'rdkit': rdkit.__version__, 'products': len(fps), 'entries': entries}, f)


if __name__ == '__main__':
    main()
