"""Builds test/fixtures/filters-reference.json: Python RDKit reference values for the legacy
filters (QED and its 8 properties, PAINS matches, Lipinski rule of five, substructure and
superstructure relations) that engine/filters must reproduce.

Run with the offline venv (RDKit 2026.9.1, the same version as @rdkit/rdkit):
    .tools/pyoff/bin/python scripts/reference/make_filters_fixture.py [--data ../shared/data/catalog]

Molecules: every input of test/fixtures/rdkit-reference.json (so the API tests can build their
catalog from it), plus PAINS hits drawn from the merged catalog (the reference set has few), plus
hand-picked QED edge cases. The draw is deterministic.
"""
import argparse
import csv
import gzip
import json
import random
from pathlib import Path

import rdkit
from rdkit import Chem
from rdkit.Chem import QED, Crippen, Descriptors, rdMolDescriptors
from rdkit.Chem.FilterCatalog import FilterCatalog, FilterCatalogParams

ROOT = Path(__file__).resolve().parents[2]
PAINS_CSV = ROOT / 'engine' / 'filters' / 'data' / 'wehi_pains.csv'

# QED edge cases: aromatic-ring counting quirks quoted in rdkit/Chem/QED.py, alerts, big drugs.
QED_EDGE_CASES = [
    'N1C2=CC=CC=C2SC3=C1C=CC4=C3C=CC=C4', 'OC1=C(O)C=C2C(=C1)OC3=CC(=O)C(=CC3=C2C4=CC=CC=C4)O',
    'CC(C)C1=CC2=C(C)C=CC2=C(C)C=C1', 'N=C(CCSCc1csc(N=C(N)N)n1)NS(N)(=O)=O', 'CNC(=NCCSCc1nc[nH]c1C)NC#N',
    'CCCCCNC(=N)NN=Cc1c[nH]c2ccc(CO)cc12', 'c1ccc2c(c1)CCCC2', 'C1CCC2CCCCC2C1', 'c1ccc2cc3ccccc3cc2c1',
    'OC(=O)c1ccccc1[N+](=O)[O-]', 'ClCC(=O)Cl', 'C#CC(=O)c1ccccc1', 'O=C1C=CC(=O)C=C1', 'CC(=O)OO',
    '[2H]C([2H])([2H])c1ccccc1', 'B(O)(O)c1ccccc1', 'C[Si](C)(C)Cl', 'CCSSCC', 'NN', 'c1ccc(I)cc1',
    'OP(=O)(O)O', '[15NH3+]CC(=O)[O-]', 'CC12CCC3c4ccc(O)cc4CCC3C1CCC2O', 'C1CC2CC1C1CCCC21',
    'C12C3C4C1C5C2C3C45', 'CC(C)(C)c1ccc(O)c(C(C)(C)C)c1',
    'CC[C@H](C)[C@H](NC(=O)[C@H](CC(C)C)NC(=O)[C@@H](N)CCCNC(=N)N)C(=O)N[C@@H](Cc1ccccc1)C(=O)O',
    'CCCCCCCCCCCCCCCCCC(=O)OCC(COC(=O)CCCCCCCCCCCCCCCCC)OC(=O)CCCCCCCCCCCCCCCCC',
]
SUBSTRUCTURE_QUERIES = [
    'c1ccccc1', 'C(=O)N', 'c1ccncc1', 'CC(=O)Oc1ccccc1C(=O)O', 'O=C1CCCCC1',
    'CCCCCCCCCCCCCCCCCC(=O)OCC(COC(=O)CCCCCCCCCCCCCCCCC)OC(=O)CCCCCCCCCCCCCCCCC',
]
N_PAINS_HITS = 60


def read_pains():
    with open(PAINS_CSV, newline='') as f:
        return [(row[1].removeprefix('<regId=').removesuffix('>'), row[0]) for row in csv.reader(f)]


def read_merged(path):
    with gzip.open(path, 'rt') as f:
        names = f.readline().rstrip('\n').split('\t')
        col = names.index('smiles')
        return [line.rstrip('\n').split('\t')[col] for line in f]


def lipinski(m):
    mw, logp = Descriptors.MolWt(m), Crippen.MolLogP(m)
    hbd, hba = rdMolDescriptors.CalcNumHBD(m), rdMolDescriptors.CalcNumHBA(m)
    violations = int(mw > 500) + int(logp > 5) + int(hbd > 5) + int(hba > 10)
    return {'mw': mw, 'logp': logp, 'hbd': hbd, 'hba': hba, 'violations': violations, 'pass': violations <= 1}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--data', default=str(ROOT.parent / 'shared' / 'data' / 'catalog'))
    ap.add_argument('--out', default=str(ROOT / 'test' / 'fixtures' / 'filters-reference.json'))
    args = ap.parse_args()
    pains = [(name, Chem.MolFromSmarts(s, mergeHs=True)) for name, s in read_pains()]
    assert len(pains) == 480 and all(p is not None for _, p in pains)
    params = FilterCatalogParams()
    params.AddCatalog(FilterCatalogParams.FilterCatalogs.PAINS)
    catalog = FilterCatalog(params)

    def pains_names(m):
        return [name for name, p in pains if m.HasSubstructMatch(p)]

    reference = json.loads((ROOT / 'test' / 'fixtures' / 'rdkit-reference.json').read_text())
    inputs = [m['input'] for m in reference['molecules']] + QED_EDGE_CASES
    rng = random.Random(20261205)
    merged = read_merged(Path(args.data) / 'catalog_merged.tsv.gz')
    hits = 0
    for s in rng.sample(merged, len(merged)):
        if hits >= N_PAINS_HITS:
            break
        m = Chem.MolFromSmiles(s)
        if m is not None and catalog.HasMatch(m):
            inputs.append(s)
            hits += 1
    queries = [Chem.MolFromSmiles(q) for q in SUBSTRUCTURE_QUERIES]
    seen, molecules = set(), []
    for smi in inputs:
        m = Chem.MolFromSmiles(smi)
        if smi in seen or m is None or m.GetNumHeavyAtoms() == 0:
            continue
        seen.add(smi)
        props = QED.properties(m)
        molecules.append({
            'input': smi,
            'canonical': Chem.MolToSmiles(m),
            'qed': QED.qed(m),
            'qed_properties': {k: float(v) for k, v in props._asdict().items()},
            'pains': pains_names(m),
            'pains_filter_catalog': catalog.HasMatch(m),
            'lipinski': lipinski(m),
            'contains_query': [m.HasSubstructMatch(q) for q in queries],
            'in_query': [q.HasSubstructMatch(m) for q in queries],
        })
    doc = {
        'rdkit_version': rdkit.__version__,
        'qed_weights': 'QED.WEIGHT_MEAN',
        'substructure_queries': SUBSTRUCTURE_QUERIES,
        'molecules': molecules,
    }
    Path(args.out).write_text(json.dumps(doc, indent=0) + '\n')
    n_pains = sum(1 for m in molecules if m['pains'])
    n_lip = sum(1 for m in molecules if not m['lipinski']['pass'])
    print(f'wrote {len(molecules)} molecules ({n_pains} PAINS hits, {n_lip} Lipinski failures) to {args.out}')


if __name__ == '__main__':
    main()
