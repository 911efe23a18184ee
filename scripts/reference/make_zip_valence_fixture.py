"""Builds test/fixtures/synthons/zip-valence-reference.json: tuples of bundled spaces and whether
RDKit's molzip (isotope labels, the synthons joined by '.') raises on them. Every tuple of the
AutoGrow4 Friedlaender reaction's slot 0 with five slot-1 partners (its quinoid synthons meet
`[1*]=C` partners: a valence error), every Doebner-Miller tuple (`[1*]N` meets `[1*]=C` and
zips), and 40 seeded random tuples of every other AutoGrow4 reaction.

    .tools/chem3d/bin/python scripts/reference/make_zip_valence_fixture.py
"""
import gzip
import json
import random
from itertools import product
from pathlib import Path

import rdkit
from rdkit import Chem, RDLogger
from rdkit.Chem import rdmolops

RDLogger.DisableLog('rdApp.*')
ROOT = Path(__file__).resolve().parents[2]
SOURCES = ROOT / 'catalogs' / 'spaces' / 'sources'
OUT = ROOT / 'test' / 'fixtures' / 'synthons' / 'zip-valence-reference.json'
PARAMS = rdmolops.MolzipParams()
PARAMS.label = rdmolops.MolzipLabel.Isotope


def read(path):
    """Synthon SMILES per reaction and slot (tab-separated, header first)."""
    opener = gzip.open if path.suffix == '.gz' else open
    out = {}
    with opener(path, 'rt') as f:
        next(f)
        for line in f:
            smiles, _sid, slot, reaction = line.split()[:4]
            out.setdefault(reaction, {}).setdefault(int(slot), []).append(smiles)
    return {r: [slots[s] for s in sorted(slots)] for r, slots in out.items()}


def raises(smiles):
    mol = Chem.MolFromSmiles('.'.join(smiles))
    if mol is None:
        return None
    try:
        Chem.molzip(mol, PARAMS)
        return False
    except Exception:
        return True


def main():
    rng = random.Random(42)
    tuples = []
    ag4 = read(SOURCES / 'zinc15_autogrow4_space.txt.gz')
    for reaction, slots in sorted(ag4.items()):
        if reaction == '60_Friedlaender_chinoline':
            tuples += [list(t) for t in product(slots[0], slots[1][:5])]
        else:
            tuples += [[rng.choice(s) for s in slots] for _ in range(40)]
    dm = read(SOURCES / 'doebner_miller_space.txt')
    for slots in dm.values():
        tuples += [list(t) for t in product(*slots)]
    entries = []
    for t in tuples:
        r = raises(t)
        if r is not None:
            entries.append([t, r])
    OUT.write_text(json.dumps({'rdkit': rdkit.__version__, 'entries': entries}, separators=(',', ':')) + '\n')
    print(len(entries), 'tuples,', sum(1 for _, r in entries if r), 'raise')


if __name__ == '__main__':
    main()
