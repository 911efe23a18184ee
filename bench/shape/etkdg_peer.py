"""The peer of the catalog 3D stage benchmark (bench/shape/stage-bench.ts): Python RDKit's ETKDGv3
alone on the same molecules, with the same recipe as chem3d/embed.py (largest fragment, AddHs,
EmbedMultipleConfs with randomSeed 42, pruneRmsThresh 0.5, one thread per molecule) but nothing
around it: no Gasteiger charges, no part files, no Temporal. THREADS molecules at once (RDKit
releases the GIL while embedding), as the chem3d worker runs THREADS parts at once.

usage: python etkdg_peer.py SMILES_FILE CONFS THREADS
Prints JSON: molecules, embedded, conformers, wall_s, cpu_s (this process, all threads).
"""
import json
import resource
import sys
import time
from concurrent.futures import ThreadPoolExecutor

from rdkit import Chem
from rdkit.Chem import rdDistGeom


def embed(smiles: str, confs: int) -> int:
    mol = Chem.MolFromSmiles(smiles)
    if mol is None:
        return 0
    frags = Chem.GetMolFrags(mol, asMols=True, sanitizeFrags=True)
    mol = Chem.AddHs(max(frags, key=lambda f: f.GetNumHeavyAtoms()))
    params = rdDistGeom.ETKDGv3()
    params.randomSeed = 42
    params.pruneRmsThresh = 0.5
    params.numThreads = 1
    params.timeout = 30
    # RDKit answers [-1] (not []) for some failures: count real conformer ids only.
    return sum(1 for i in rdDistGeom.EmbedMultipleConfs(mol, confs, params) if i >= 0)


def cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def main():
    path, confs, threads = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    smiles = [l.split()[0] for l in open(path) if l.strip()]
    c0, t0 = cpu(), time.perf_counter()
    with ThreadPoolExecutor(threads) as pool:
        kept = list(pool.map(lambda s: embed(s, confs), smiles))
    wall, used = time.perf_counter() - t0, cpu() - c0
    print(json.dumps({
        "molecules": len(smiles),
        "embedded": sum(1 for k in kept if k > 0),
        "conformers": sum(kept),
        "wall_s": round(wall, 2),
        "cpu_s": round(used, 2),
    }))


if __name__ == "__main__":
    main()
