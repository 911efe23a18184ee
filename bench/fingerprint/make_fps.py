"""Builds the benchmark's fingerprint file, shared by our scan and the Python peers.

Step 1 (cached): Morgan radius-2 2048-bit fingerprints (RDKit byte layout) of every row of
catalog_merged.tsv.gz (802,238 molecules; rows whose SMILES RDKit cannot parse get an empty
fingerprint so row numbers stay aligned) -> bench/out/fps-real.u8 (rows x 256 bytes).
Step 2: bench/out/fps-<n>.u8 with exactly n rows: the first n real rows when n <= 802,238; beyond
that, perturbed copies: row 802,238 + j is a copy of a seeded random real row with one set bit
moved to a random unset position (same popcount, Tanimoto to the original (b-1)/(b+1)), so the
extra rows look like close analogues rather than exact duplicates.

Usage: python make_fps.py <catalog_merged.tsv.gz> <n> [workers]
"""
import gzip
import os
import sys
from multiprocessing import Pool

import numpy as np
from rdkit import Chem, DataStructs, RDLogger
from rdkit.Chem import rdFingerprintGenerator

OUT = os.path.join(os.path.dirname(__file__), "..", "out")


def fp_chunk(smiles):
    RDLogger.DisableLog("rdApp.*")
    gen = rdFingerprintGenerator.GetMorganGenerator(radius=2, fpSize=2048)
    out = bytearray(256 * len(smiles))
    for i, s in enumerate(smiles):
        mol = Chem.MolFromSmiles(s)
        if mol is not None:
            out[i * 256 : (i + 1) * 256] = DataStructs.BitVectToBinaryText(gen.GetFingerprint(mol))
    return bytes(out)


def real_fps(src, workers):
    path = os.path.join(OUT, "fps-real.u8")
    if os.path.exists(path):
        return np.fromfile(path, dtype=np.uint8).reshape(-1, 256)
    with gzip.open(src, "rt") as fh:
        header = fh.readline().rstrip("\n").split("\t")
        col = header.index("smiles")
        smiles = [line.rstrip("\n").split("\t")[col] for line in fh]
    chunks = [smiles[i : i + 5000] for i in range(0, len(smiles), 5000)]
    with Pool(workers) as pool:
        data = b"".join(pool.imap(fp_chunk, chunks))
    arr = np.frombuffer(data, dtype=np.uint8).reshape(-1, 256)
    arr.tofile(path + ".tmp")
    os.replace(path + ".tmp", path)
    return arr


def main():
    src, n = sys.argv[1], int(sys.argv[2])
    workers = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    os.makedirs(OUT, exist_ok=True)
    real = real_fps(src, workers)
    target = os.path.join(OUT, f"fps-{n}.u8")
    if os.path.exists(target):
        return
    if n <= len(real):
        out = real[:n]
    else:
        rng = np.random.default_rng(42)
        extra = n - len(real)
        src_rows = rng.integers(0, len(real), extra)
        add = real[src_rows].copy()
        bits = np.unpackbits(add, axis=1, bitorder="little")
        for j in range(extra):
            on = np.flatnonzero(bits[j])
            if len(on) == 0:
                continue
            off = np.flatnonzero(bits[j] == 0)
            bits[j, on[rng.integers(len(on))]] = 0
            bits[j, off[rng.integers(len(off))]] = 1
        out = np.concatenate([real, np.packbits(bits, axis=1, bitorder="little")])
    out.tofile(target + ".tmp")
    os.replace(target + ".tmp", target)


if __name__ == "__main__":
    main()
