"""Builds test/fixtures/synthons/two-routes-reference.json: every product of
test/fixtures/synthons/two_routes_space.txt (two reactions, one product reached by both: the amide
route joins benzoyl to pyrrolidine, the aryl route phenyl to the pyrrolidine carboxamide), assembled
with RDKit's molzip, with its Morgan r2 2048 Tanimoto to the query.

    .tools/shapebench/bin/python scripts/reference/make_two_routes_fixture.py
"""
import json
from itertools import product
from pathlib import Path

import rdkit
from rdkit import Chem, DataStructs
from rdkit.Chem import rdFingerprintGenerator, rdmolops

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / 'test' / 'fixtures' / 'synthons'
GEN = rdFingerprintGenerator.GetMorganGenerator(radius=2, fpSize=2048)
QUERY = 'O=C(c1ccccc1)N1CCCC1'


def reactions():
    """Synthon SMILES per reaction and slot, from the space file (tab-separated, header first)."""
    out = {}
    lines = (FIXTURES / 'two_routes_space.txt').read_text().splitlines()[1:]
    for line in lines:
        smiles, _sid, slot, reaction = [f for f in line.split('\t') if f]
        out.setdefault(reaction, {}).setdefault(int(slot), []).append(smiles)
    return out


def main():
    params = rdmolops.MolzipParams()
    params.label = rdmolops.MolzipLabel.Isotope
    query = GEN.GetFingerprint(Chem.MolFromSmiles(QUERY))
    tuples = []
    for reaction, slots in reactions().items():
        for synthons in product(*(slots[s] for s in sorted(slots))):
            zipped = rdmolops.molzip(Chem.MolFromSmiles('.'.join(synthons)), params)
            mol = Chem.MolFromSmiles(Chem.MolToSmiles(zipped))
            sim = DataStructs.TanimotoSimilarity(query, GEN.GetFingerprint(mol))
            tuples.append({'reaction': reaction, 'smiles': Chem.MolToSmiles(mol), 'similarity': sim})
    out = {'rdkit': rdkit.__version__, 'query': QUERY, 'tuples': tuples}
    (FIXTURES / 'two-routes-reference.json').write_text(json.dumps(out, indent=1) + '\n')


if __name__ == '__main__':
    main()
