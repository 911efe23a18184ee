"""Wildman-Crippen atom types with RDKit substructure matching: the Python reference for
engine/chem/crippen.ts (crippenTypeCounts) and the source of the Crippen type-count features.

The parameter table is engine/chem/data/crippen.json (RDKit's compiled-in table). RDKit types the
atoms of Chem.AddHs(mol): each atom takes the first row (in file order) whose SMARTS matches with
that atom as the first pattern atom. Summing the rows' contributions in atom order reproduces
Crippen.MolLogP / Crippen.MolMR exactly, which is how this module is checked
(`python models/crippen_types.py SMILES...` prints both).

RDKit's own typing stops after 1000 matches of a row (SubstructMatch maxMatches), so in very large
molecules it can miss types; `max_matches=None` (the default, used for features) removes that cap,
`max_matches=1000` reproduces RDKit's logP / MR there too.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
from rdkit import Chem

DATA = Path(__file__).resolve().parent.parent / "engine" / "chem" / "data" / "crippen.json"
_PARAMS = json.loads(DATA.read_text())["params"]
LABELS: list[str] = list(dict.fromkeys(row[0] for row in _PARAMS))
_ROWS = [(LABELS.index(label), Chem.MolFromSmarts(smarts), logp, mr) for label, smarts, logp, mr in _PARAMS]
_UNLIMITED = 2**31 - 1


def crippen_row_per_atom(mol: Chem.Mol, max_matches: int | None = None) -> tuple[Chem.Mol, list[int]]:
    """The hydrogen-added molecule and, per atom of it, the index of its table row (-1: none)."""
    mh = Chem.AddHs(mol)
    rows = [-1] * mh.GetNumAtoms()
    left = mh.GetNumAtoms()
    for r, (_, patt, _, _) in enumerate(_ROWS):
        for match in mh.GetSubstructMatches(patt, uniquify=False, maxMatches=max_matches or _UNLIMITED):
            if rows[match[0]] < 0:
                rows[match[0]] = r
                left -= 1
        if left == 0:
            break
    return mh, rows


def crippen_type_counts(mol: Chem.Mol) -> np.ndarray:
    """Atoms of Chem.AddHs(mol) per Crippen type, float32 in LABELS order (untyped atoms not counted)."""
    out = np.zeros(len(LABELS), dtype=np.float32)
    for r in crippen_row_per_atom(mol)[1]:
        if r >= 0:
            out[_ROWS[r][0]] += 1
    return out


def crippen_logp_mr(mol: Chem.Mol, max_matches: int | None = 1000) -> tuple[float, float]:
    """logP and MR summed in atom order like RDKit (equal to Crippen.MolLogP / MolMR with the default cap)."""
    logp = mr = 0.0
    for r in crippen_row_per_atom(mol, max_matches)[1]:
        if r >= 0:
            logp += _ROWS[r][2]
            mr += _ROWS[r][3]
    return logp, mr


if __name__ == "__main__":
    from rdkit.Chem import Crippen

    for smi in sys.argv[1:]:
        m = Chem.MolFromSmiles(smi)
        counts = crippen_type_counts(m)
        print(smi, crippen_logp_mr(m), (Crippen.MolLogP(m), Crippen.MolMR(m)),
              {LABELS[i]: int(c) for i, c in enumerate(counts) if c})
