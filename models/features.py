"""ADMET feature vectors, computed exactly as engine/admet/features.ts computes them at serving time.

The layout (Morgan radius-2 2048-bit fingerprint, then the 43 MinimalLib descriptors) is read from
features.json, which both sides load, so the two cannot silently drift apart; the TypeScript test
test/engine/admet/features.test.ts checks equality on a committed fixture made by this module.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
from rdkit import Chem, RDLogger, rdBase
from rdkit.Chem import rdFingerprintGenerator, rdMolDescriptors

RDLogger.DisableLog("rdApp.*")

SPEC_PATH = Path(__file__).with_name("features.json")
SPEC = json.loads(SPEC_PATH.read_text())
MORGAN = SPEC["blocks"][0]
DESCRIPTOR_NAMES: list[str] = SPEC["blocks"][1]["names"]
N_BITS: int = MORGAN["n_bits"]
LENGTH: int = SPEC["length"]

assert MORGAN["kind"] == "morgan_bits" and N_BITS + len(DESCRIPTOR_NAMES) == LENGTH
assert rdBase.rdkitVersion.replace(".09.", ".9.") == SPEC["rdkit_version"].replace(".09.", ".9."), (
    f"features are defined for RDKit {SPEC['rdkit_version']}, found {rdBase.rdkitVersion}"
)

_GEN = rdFingerprintGenerator.GetMorganGenerator(radius=MORGAN["radius"], fpSize=N_BITS)
_PROPS = rdMolDescriptors.Properties(DESCRIPTOR_NAMES)
assert list(_PROPS.GetPropertyNames()) == DESCRIPTOR_NAMES


def spec_hash() -> str:
    """sha256 of features.json as committed; the manifest records it so serving can refuse a mismatch."""
    return hashlib.sha256(SPEC_PATH.read_bytes()).hexdigest()


def featurize_mol(mol: Chem.Mol) -> np.ndarray:
    """One float32 vector of LENGTH values for a parsed molecule."""
    out = np.zeros(LENGTH, dtype=np.float32)
    fp = _GEN.GetFingerprintAsNumPy(mol)
    out[:N_BITS] = fp
    out[N_BITS:] = np.asarray(_PROPS.ComputeProperties(mol), dtype=np.float64)
    return out


def featurize_smiles(smiles: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Features for many SMILES: (X float32 [n, LENGTH], ok bool [n]); rows of unparsable SMILES are zero."""
    x = np.zeros((len(smiles), LENGTH), dtype=np.float32)
    ok = np.zeros(len(smiles), dtype=bool)
    for i, s in enumerate(smiles):
        mol = Chem.MolFromSmiles(s)
        if mol is None:
            continue
        x[i] = featurize_mol(mol)
        ok[i] = True
    return x, ok
