"""Builds test/fixtures/synthons/idorsia-topk-reference.json: the brute-force Morgan top-k over
RDKit's full enumeration of the Idorsia toy space for the tester's query (acetanilide), the
ground truth for the top-k regression test (test/engine/synthons/similarity-topk.test.ts), and
idorsia-dissimilar-reference.json: the same for queries dissimilar to the whole space.

Its top hits are urea-5 products that keep a `[*:3]` dummy: the toy file gives urea-5 only two
synthon sets, and RDKit's own enumeration keeps the unpaired connector (docs/synthon-spaces.md).

Run with the offline venv of scripts/reference/make_synthon_fixtures.py:
    .tools/pysyn/bin/python scripts/reference/make_synthon_topk_fixture.py   (or .tools/chem3d/bin/python)
"""
import gzip
import json
from pathlib import Path

import rdkit
from rdkit import Chem, DataStructs
from rdkit.Chem import rdFingerprintGenerator

ROOT = Path(__file__).resolve().parents[2]
ENUM = ROOT / 'test' / 'fixtures' / 'synthons' / 'idorsia_toy_space_enum.smi.gz'
OUT = ROOT / 'test' / 'fixtures' / 'synthons' / 'idorsia-topk-reference.json'
GEN = rdFingerprintGenerator.GetMorganGenerator(radius=2, fpSize=2048)
QUERIES = ['CC(=O)Nc1ccccc1']
K = 10
# Queries dissimilar to the whole space (best Tanimoto 0.15 and 0.05: below the old 0.25 floor of
# the top-k search, the second needs the last threshold, 0), with every product tied at the k-th.
DISSIMILAR = [('OC(=O)C(F)(F)C(F)(F)C(F)(F)F', 10), ('ClC(Cl)(Cl)Cl', 30)]
DISSIMILAR_OUT = ROOT / 'test' / 'fixtures' / 'synthons' / 'idorsia-dissimilar-reference.json'


def main():
    products = []
    with gzip.open(ENUM, 'rt') as f:
        for line in f:
            smiles, name = line.split()
            mol = Chem.MolFromSmiles(smiles)
            products.append((name, Chem.MolToSmiles(mol), GEN.GetFingerprint(mol)))
    entries = []
    for q, k in DISSIMILAR:
        qfp = GEN.GetFingerprint(Chem.MolFromSmiles(q))
        scored = sorted(
            ((round(DataStructs.TanimotoSimilarity(qfp, fp), 6), smi) for name, smi, fp in products),
            key=lambda r: (-r[0], r[1]),
        )
        kth = scored[k - 1][0]
        entries.append({'query': q, 'k': k, 'top': [[smi, sim] for sim, smi in scored if sim >= kth]})
    DISSIMILAR_OUT.write_text(
        json.dumps({'rdkit': rdkit.__version__, 'products': len(products), 'entries': entries}, indent=1)
        + '\n'
    )
    entries = []
    for q in QUERIES:
        qfp = GEN.GetFingerprint(Chem.MolFromSmiles(q))
        scored = sorted(
            ((round(DataStructs.TanimotoSimilarity(qfp, fp), 6), smi, name) for name, smi, fp in products),
            key=lambda r: (-r[0], r[1]),
        )
        entries.append({'query': q, 'top': [[smi, sim, name] for sim, smi, name in scored[: K + 5]]})
    OUT.write_text(
        json.dumps({'rdkit': rdkit.__version__, 'products': len(products), 'k': K, 'entries': entries}, indent=1)
        + '\n'
    )


if __name__ == '__main__':
    main()
