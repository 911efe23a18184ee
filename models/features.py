"""ADMET feature vectors, computed exactly as engine/admet/features.ts computes them at serving time.

The layout is read from features.json, which both sides load, so the two cannot silently drift
apart: the Morgan radius-2 2048-bit fingerprint, then 14 RDKit descriptors (the service's 11 plus
fraction Csp3, aromatic rings and heteroatoms), then the counts of Wildman-Crippen atom types
(crippen_types.py; hydrogens included). Every descriptor here is one the engine computes in
TypeScript from the molecule graph (engine/chem/*), which is ~15x cheaper than MinimalLib's
all-in-one get_descriptors(); test/engine/admet/features.test.ts checks equality on a fixture made
by make_fixture.py.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
from rdkit import Chem, RDLogger, rdBase
from rdkit.Chem import Crippen, Descriptors, rdFingerprintGenerator, rdMolDescriptors

import crippen_types

RDLogger.DisableLog("rdApp.*")

SPEC_PATH = Path(__file__).with_name("features.json")
SPEC = json.loads(SPEC_PATH.read_text())
MORGAN, DESC, CRIPPEN = SPEC["blocks"]
DESCRIPTOR_NAMES: list[str] = DESC["names"]
CRIPPEN_LABELS: list[str] = CRIPPEN["labels"]
N_BITS: int = MORGAN["n_bits"]
LENGTH: int = SPEC["length"]

# Python definition of each descriptor column (the reference the TypeScript side is tested against).
FUNCS = {
    "molecular_weight": Descriptors.MolWt,
    "formal_charge": Chem.GetFormalCharge,
    "clogp": Crippen.MolLogP,
    "heavy_atoms": lambda m: m.GetNumHeavyAtoms(),
    "h_bond_acceptors": rdMolDescriptors.CalcNumHBA,
    "h_bond_donor": rdMolDescriptors.CalcNumHBD,
    "rotatable_bonds": rdMolDescriptors.CalcNumRotatableBonds,
    "num_of_rings": rdMolDescriptors.CalcNumRings,
    "molar_refractivity": Crippen.MolMR,
    "number_of_atoms": rdMolDescriptors.CalcNumAtoms,
    "topological_surface_area_mapping": rdMolDescriptors.CalcTPSA,
    "fraction_csp3": rdMolDescriptors.CalcFractionCSP3,
    "num_aromatic_rings": rdMolDescriptors.CalcNumAromaticRings,
    "num_heteroatoms": rdMolDescriptors.CalcNumHeteroatoms,
}
_FUNCS = [FUNCS[name] for name in DESCRIPTOR_NAMES]

assert MORGAN["kind"] == "morgan_bits" and DESC["kind"] == "descriptors" and CRIPPEN["kind"] == "crippen_type_counts"
assert N_BITS + len(DESCRIPTOR_NAMES) + len(CRIPPEN_LABELS) == LENGTH
assert CRIPPEN_LABELS == list(crippen_types.LABELS), "features.json labels differ from engine/chem/data/crippen.json"
assert rdBase.rdkitVersion.replace(".09.", ".9.") == SPEC["rdkit_version"].replace(".09.", ".9."), (
    f"features are defined for RDKit {SPEC['rdkit_version']}, found {rdBase.rdkitVersion}"
)

_GEN = rdFingerprintGenerator.GetMorganGenerator(radius=MORGAN["radius"], fpSize=N_BITS)


def spec_hash() -> str:
    """sha256 of features.json as committed; the manifest records it so serving can refuse a mismatch."""
    return hashlib.sha256(SPEC_PATH.read_bytes()).hexdigest()


def descriptors(mol: Chem.Mol) -> list[float]:
    """The descriptor block of one molecule, in features.json order (float64)."""
    return [float(f(mol)) for f in _FUNCS]


def featurize_mol(mol: Chem.Mol) -> np.ndarray:
    """One float32 vector of LENGTH values for a parsed molecule."""
    out = np.zeros(LENGTH, dtype=np.float32)
    out[:N_BITS] = _GEN.GetFingerprintAsNumPy(mol)
    nd = len(DESCRIPTOR_NAMES)
    out[N_BITS:N_BITS + nd] = np.asarray(descriptors(mol), dtype=np.float64)
    out[N_BITS + nd:] = crippen_types.crippen_type_counts(mol)
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
