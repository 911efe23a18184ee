"""Builds test/fixtures/synthons/substructure-reference.json: for each bundled RDKit test space and
the Idorsia toy space, the products RDKit's SynthonSpaceSearch SubstructureSearch returns for the
substructure queries of make_synthon_fixtures.py, next to brute force over the full enumeration
(HasSubstructMatch on every enumerated product): the exact answer our space search must equal.
For the Idorsia space (29,200 products) only the counts are kept. RDKit's hit lists there differ
from its own enumeration in the urea-5 products that keep a [3*] (other SMILES, same counts).

Run with the offline venv (RDKit 2026.9.1, the same version as @rdkit/rdkit):
    python3 -m venv .tools/pysyn && .tools/pysyn/bin/pip install -r bench/synthons/requirements.txt
    .tools/pysyn/bin/python scripts/reference/make_synthon_substructure_fixture.py
"""
import gzip
import json
from pathlib import Path

import rdkit
from rdkit import Chem
from rdkit.Chem import rdSynthonSpaceSearch as sss

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ROOT / 'catalogs' / 'spaces' / 'sources'
FIXTURES = ROOT / 'test' / 'fixtures' / 'synthons'
SPACES = {
    'amide_space': 'amide_space_enum.smi',
    'urea_space': 'urea_space_enum.smi',
    'triazole_space': 'triazole_space_enum.smi',
    'doebner_miller_space': 'doebner_miller_space_enum.smi',
    'idorsia_toy_space_a': 'idorsia_toy_space_enum.smi.gz',
}
LIST_LIMIT = 1000
QUERIES = ['c1ccncc1', 'C(=O)N', '[#7]-[#6](=O)-[#7]', 'c1nnc[nH0]1', 'FC(F)', 'c1ccc2ncccc2c1', 'S',
           'c1ccccc1C(=O)N', '[#6]-[#7;R]', 'N1CCOCC1', 'C1CCC1C']


def enumeration(name):
    path = FIXTURES / name
    text = gzip.open(path, 'rt').read() if name.endswith('.gz') else path.read_text()
    return [Chem.MolFromSmiles(line.split()[0]) for line in text.splitlines() if line.strip()]


def main():
    out = {'rdkit_version': rdkit.__version__, 'spaces': {}}
    for space, enum_file in SPACES.items():
        products = [m for m in enumeration(enum_file) if m is not None]
        synthon_space = sss.SynthonSpace()
        synthon_space.ReadTextFile(str(SOURCES / f'{space}.txt'))
        entries = {}
        for q in QUERIES:
            patt = Chem.MolFromSmarts(q)
            brute = sorted({Chem.MolToSmiles(m) for m in products if m.HasSubstructMatch(patt)})
            params = sss.SynthonSpaceSearchParams()
            params.maxHits = -1
            res = synthon_space.SubstructureSearch(patt, params=params)
            found = sorted({Chem.MolToSmiles(m) for m in res.GetHitMolecules()})
            # Large spaces keep counts only (the product lists would be megabytes).
            entries[q] = (
                {'brute_force': brute, 'rdkit_sss': found}
                if len(products) <= LIST_LIMIT
                else {'brute_force_count': len(brute), 'rdkit_sss_count': len(found)}
            )
            print(space, q, 'brute force', len(brute), 'RDKit SSS', len(found),
                  'missed', len(set(brute) - set(found)), 'extra', len(set(found) - set(brute)), flush=True)
        out['spaces'][space] = entries
    path = FIXTURES / 'substructure-reference.json'
    path.write_text(json.dumps(out, indent=1) + '\n')
    print('wrote', path)


if __name__ == '__main__':
    main()
