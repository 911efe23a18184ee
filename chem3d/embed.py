"""3D embedding of one molecule: the chemistry of the chem3d worker, free of Temporal.

Contract (docs/chem3d.md): the largest fragment (most heavy atoms; counter-ions and solvents do not
belong to the shape), explicit hydrogens (AddHs), ETKDGv3 conformers with a fixed random seed on
one thread for the catalog (its parts run in parallel instead), all cores for a query (a
request waits for it; the coordinates do not depend on the thread count), Gasteiger partial charges,
optional MMFF94 optimisation. The result is the typed-array contract of engine/shape: atomic
numbers (H included), float32 charges and float32 coordinates (conformer-major, then atom, xyz).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from rdkit import Chem, rdBase
from rdkit.Chem import AllChem, rdDistGeom

RDKIT_VERSION = rdBase.rdkitVersion
# espsim's default conformer count; near-duplicates (heavy-atom RMSD < PRUNE_RMS) are dropped.
DEFAULT_CONFS = 10
PRUNE_RMS = 0.5
DEFAULT_SEED = 42
# Larger molecules (peptides, macrocycles) embed slowly and are not what shape search is for.
MAX_HEAVY_ATOMS = 100
MAX_CONFS = 50
COMMON_ELEMENTS = {"H", "C", "N", "O", "F", "P", "S", "Cl", "Br", "I"}
# The elements a query may have: those with a Bondi radius in the reference's shape model
# (bench/shape/refscores.py BONDI) and Gasteiger parameters. Anything else (U, metals) got a
# carbon-sized sphere and charge 0 and was ranked silently; Se has no Gasteiger charge.
QUERY_ELEMENTS = {"H", "B", "C", "N", "O", "F", "Si", "P", "S", "Cl", "Br", "I"}


class EmbedError(Exception):
    """A molecule that cannot be embedded; the message is the reason reported to the caller."""


@dataclass
class Embedded:
    atom_count: int
    conf_count: int
    elements: bytes  # uint8 atomic numbers
    charges: bytes  # float32 little-endian, one per atom
    coords: bytes  # float32 little-endian, conf_count * atom_count * 3


def largest_fragment(mol: Chem.Mol) -> Chem.Mol:
    frags = Chem.GetMolFrags(mol, asMols=True, sanitizeFrags=True)
    # max() keeps the first of equal-sized fragments, so the choice is deterministic.
    return max(frags, key=lambda f: f.GetNumHeavyAtoms())


def etkdg_params(
    seed: int, timeout_s: float, random_coords: bool = False, threads: int = 1
) -> rdDistGeom.EmbedParameters:
    params = rdDistGeom.ETKDGv3()
    params.randomSeed = seed
    params.pruneRmsThresh = PRUNE_RMS
    # RDKit draws every conformer's seed before sharing them out, so the conformers are the same
    # for any thread count (checked on 12 drugs: bit-identical coordinates with 1 and 2 threads).
    params.numThreads = threads
    params.useRandomCoords = random_coords
    if timeout_s > 0:
        params.timeout = max(1, int(math.ceil(timeout_s)))
    return params


def prepare(smiles: str) -> Chem.Mol:
    """Parses and returns the hydrogen-complete largest fragment, or raises EmbedError."""
    if not smiles or not smiles.strip():
        raise EmbedError("empty SMILES")
    mol = Chem.MolFromSmiles(smiles)
    if mol is None:
        raise EmbedError("unparsable SMILES")
    mol = largest_fragment(mol)
    heavy = mol.GetNumHeavyAtoms()
    if heavy == 0:
        raise EmbedError("no heavy atoms")
    if heavy > MAX_HEAVY_ATOMS:
        raise EmbedError(f"too large for 3D: {heavy} heavy atoms (at most {MAX_HEAVY_ATOMS})")
    return Chem.AddHs(mol)


def check_query(smiles: str) -> None:
    """Rejects a query with nothing 3D to compare (EmbedError): monatomic ions only, or an element
    outside QUERY_ELEMENTS in the fragment that would be embedded. Catalog rows are not checked."""
    mol = Chem.MolFromSmiles(smiles) if smiles and smiles.strip() else None
    if mol is None:
        return  # prepare() names the reason
    frags = Chem.GetMolFrags(mol, asMols=True)
    if all(f.GetNumAtoms() == 1 and f.GetAtomWithIdx(0).GetFormalCharge() != 0 for f in frags):
        ions = ", ".join(Chem.MolToSmiles(f) for f in frags)
        raise EmbedError(f"only monatomic ions ({ions}): no molecular shape or charge distribution to compare in 3D")
    odd = sorted({a.GetSymbol() for a in largest_fragment(mol).GetAtoms()} - QUERY_ELEMENTS)
    if odd:
        raise EmbedError(
            f"element(s) {', '.join(odd)} not supported in 3D (no shape radius or Gasteiger charge; "
            f"supported: {', '.join(sorted(QUERY_ELEMENTS))})"
        )


def describe(smiles: str) -> str:
    """Size and flexibility of the fragment that is embedded, for a reason that explains a timeout."""
    from rdkit.Chem import rdMolDescriptors

    try:
        mol = largest_fragment(Chem.MolFromSmiles(smiles))
        return f"{mol.GetNumHeavyAtoms()} heavy atoms, {rdMolDescriptors.CalcNumRotatableBonds(mol)} rotatable bonds"
    except Exception:  # only a description: the timeout is the reason
        return "size unknown"


def embed_mol(
    smiles: str,
    confs: int = DEFAULT_CONFS,
    seed: int = DEFAULT_SEED,
    mmff: bool = False,
    timeout_s: float = 0,
    threads: int = 1,
) -> Embedded:
    """Embeds one SMILES into the typed-array contract, or raises EmbedError with the reason."""
    import numpy as np

    if not 1 <= confs <= MAX_CONFS:
        raise EmbedError(f"conformer count {confs} outside 1..{MAX_CONFS}")
    mol = prepare(smiles)
    # Some failures answer [-1] rather than []: only non-negative ids are conformers.
    ids = [i for i in rdDistGeom.EmbedMultipleConfs(mol, confs, etkdg_params(seed, timeout_s, False, threads)) if i >= 0]
    if not ids:
        # RDKit's documented fallback for molecules whose distance bounds defeat the eigenvalue start.
        params = etkdg_params(seed, timeout_s, True, threads)
        ids = [i for i in rdDistGeom.EmbedMultipleConfs(mol, confs, params) if i >= 0]
    if not ids:
        raise EmbedError("embedding failed (ETKDGv3, also from random coordinates)")
    if mmff:
        if not AllChem.MMFFHasAllMoleculeParams(mol):
            raise EmbedError("MMFF94 has no parameters for this molecule")
        AllChem.MMFFOptimizeMoleculeConfs(mol, numThreads=threads, maxIters=500)
    AllChem.ComputeGasteigerCharges(mol)
    charges = [a.GetDoubleProp("_GasteigerCharge") for a in mol.GetAtoms()]
    bad = {a.GetSymbol() for a, q in zip(mol.GetAtoms(), charges) if not math.isfinite(q)}
    if bad:
        # An unparameterised atom turns its neighbours' charges into NaN too: name the culprit.
        odd = bad - COMMON_ELEMENTS
        raise EmbedError(f"no Gasteiger charge for element(s) {', '.join(sorted(odd or bad))}")
    n = mol.GetNumAtoms()
    coords = np.stack([mol.GetConformer(i).GetPositions() for i in ids]).astype("<f4")
    return Embedded(
        atom_count=n,
        conf_count=len(ids),
        elements=bytes(a.GetAtomicNum() for a in mol.GetAtoms()),
        charges=np.asarray(charges, dtype="<f4").tobytes(),
        coords=coords.reshape(len(ids) * n * 3).tobytes(),
    )
