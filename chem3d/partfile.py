"""Part files of the catalog 3D stage: the chem3d worker's output for one slice of a shard.

Input (`*.smi`, written by the Node planner): one `smiles` per line, in shard row order.
Output (`*.c3d`, read by engine/catalog/three-d-part.ts), written to a temporary name and renamed,
so a part file either exists whole or not at all:

    C3DPART1\\n
    <one JSON line>\\n       {"rows": n, "rdkit_version": ..., "molecules": [
                                {"atoms": a, "confs": c} | {"reason": "..."}, ...]}  (one per row)
    elements                 uint8, sum of a over embedded rows, zero-padded to a multiple of 4
    charges                  float32 LE, sum of a
    coords                   float32 LE, sum of c * a * 3

Sections concatenate the embedded molecules in row order; rejected rows contribute nothing.
"""

from __future__ import annotations

import json
import os
from typing import Callable

from embed import RDKIT_VERSION, EmbedError, embed_mol

MAGIC = b"C3DPART1\n"


def read_smiles(path: str) -> list[str]:
    with open(path, encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f]


def embed_part(
    smiles: list[str],
    out_path: str,
    confs: int,
    seed: int,
    mmff: bool,
    timeout_s: float,
    progress: Callable[[int], None] = lambda _i: None,
) -> dict:
    """Embeds every SMILES and writes the part file atomically; returns the counts."""
    entries: list[dict] = []
    elements: list[bytes] = []
    charges: list[bytes] = []
    coords: list[bytes] = []
    for i, smi in enumerate(smiles):
        progress(i)
        try:
            e = embed_mol(smi, confs=confs, seed=seed, mmff=mmff, timeout_s=timeout_s)
        except EmbedError as err:
            entries.append({"reason": str(err)})
            continue
        except Exception as err:  # an RDKit error on one molecule must not fail the whole part
            entries.append({"reason": f"RDKit error: {err}"})
            continue
        entries.append({"atoms": e.atom_count, "confs": e.conf_count})
        elements.append(e.elements)
        charges.append(e.charges)
        coords.append(e.coords)
    el = b"".join(elements)
    el += b"\0" * (-len(el) % 4)
    header = {"rows": len(smiles), "rdkit_version": RDKIT_VERSION, "molecules": entries}
    tmp = f"{out_path}.tmp-{os.getpid()}"
    with open(tmp, "wb") as f:
        f.write(MAGIC)
        f.write(json.dumps(header, separators=(",", ":")).encode() + b"\n")
        f.write(el)
        f.write(b"".join(charges))
        f.write(b"".join(coords))
    os.replace(tmp, out_path)
    rejected = sum(1 for e in entries if "reason" in e)
    return {"rows": len(smiles), "embedded": len(smiles) - rejected, "rejected": rejected}
