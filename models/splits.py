"""TDC's Bemis-Murcko scaffold split, re-implemented (same algorithm as tdc.utils.split.create_scaffold_split).

Why re-implemented: PyTDC pins old dependencies; the algorithm is short. Scaffolds are
MurckoScaffoldSmiles(includeChirality=False); scaffold sets larger than half the valid or test
size go first ("big"), both groups are shuffled with random.Random(seed), then filled greedily
into train, then valid, then test. Row order of the input matters, so callers keep file order.
"""
from __future__ import annotations

from collections import defaultdict
from random import Random

from rdkit import Chem
from rdkit.Chem.Scaffolds import MurckoScaffold


def scaffold_split(smiles: list[str], seed: int, frac: tuple[float, float, float]) -> tuple[list[int], list[int], list[int]]:
    """Row indices (train, valid, test) of TDC's scaffold split; unparsable rows are left out, as TDC does."""
    rng = Random(seed)
    scaffolds: dict[str, set[int]] = defaultdict(set)
    errors = 0
    for i, s in enumerate(smiles):
        try:
            scaffolds[MurckoScaffold.MurckoScaffoldSmiles(mol=Chem.MolFromSmiles(s), includeChirality=False)].add(i)
        except Exception:  # TDC omits rows RDKit cannot handle; so do we
            errors += 1
    n = len(smiles) - errors
    train_size = int(n * frac[0])
    val_size = int(n * frac[1])
    test_size = n - train_size - val_size
    big, small = [], []
    for index_set in scaffolds.values():
        (big if len(index_set) > val_size / 2 or len(index_set) > test_size / 2 else small).append(index_set)
    rng.seed(seed)
    rng.shuffle(big)
    rng.shuffle(small)
    train: list[int] = []
    val: list[int] = []
    test: list[int] = []
    for index_set in big + small:
        if len(train) + len(index_set) <= train_size:
            train += index_set
        elif frac[2] == 0 or len(val) + len(index_set) <= val_size:
            val += index_set
        else:
            test += index_set
    return train, val, test
