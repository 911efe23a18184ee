"""RDKit side of bench/analysis (run by run.ts with the .tools/analysis venv).

Reads the bundled ZINC15 sample, computes Morgan radius-2 2048-bit fingerprints with Python RDKit,
writes them for the TypeScript side (raw rows of 256 bytes, RDKit byte layout), then times:
- the similarity matrix: DataStructs.BulkTanimotoSimilarity(q, targets) for every query;
- Butina: the distance list (BulkTanimotoSimilarity against all earlier rows, 1 - x, as the RDKit
  Cookbook does) and rdkit.ML.Cluster.Butina.ClusterData on it.
Prints one JSON line with the timings and writes reference values for the equality checks.

Usage: peers.py <out_dir> <n_targets> <n_queries> <n_butina> <butina_threshold>
"""
import gzip
import json
import sys
import time

import numpy as np
from rdkit import Chem, DataStructs, RDLogger
from rdkit.Chem import rdFingerprintGenerator
from rdkit.ML.Cluster import Butina

RDLogger.DisableLog("rdApp.*")
out_dir, n_targets, n_queries, n_butina, threshold = sys.argv[1], *map(int, sys.argv[2:5]), float(sys.argv[5])
gen = rdFingerprintGenerator.GetMorganGenerator(radius=2, fpSize=2048)

fps = []
with gzip.open("catalogs/sources/zinc15_sample.tsv.gz", "rt") as fh:
    next(fh)
    for line in fh:
        mol = Chem.MolFromSmiles(line.split("\t")[0])
        if mol is None or mol.GetNumAtoms() == 0:
            continue
        fps.append(gen.GetFingerprint(mol))
        if len(fps) == n_targets + n_queries:
            break
targets, queries = fps[:n_targets], fps[n_targets:]


def raw(fp_list):
    buf = bytearray()
    for fp in fp_list:
        arr = np.zeros(2048, dtype=np.uint8)
        DataStructs.ConvertToNumpyArray(fp, arr)
        buf += np.packbits(arr, bitorder="little").tobytes()
    return bytes(buf)


with open(f"{out_dir}/targets.u8", "wb") as fh:
    fh.write(raw(targets))
with open(f"{out_dir}/queries.u8", "wb") as fh:
    fh.write(raw(queries))

t0 = time.perf_counter()
checks = []
for i, q in enumerate(queries):
    sims = DataStructs.BulkTanimotoSimilarity(q, targets)
    if i in (0, len(queries) - 1):
        checks.append(sims)
matrix_s = time.perf_counter() - t0
np.array(checks, dtype=np.float64).tofile(f"{out_dir}/matrix-check.f64")

bfps = fps[:n_butina]
t0 = time.perf_counter()
dists = []
for i in range(1, len(bfps)):
    dists.extend([1 - x for x in DataStructs.BulkTanimotoSimilarity(bfps[i], bfps[:i])])
t1 = time.perf_counter()
clusters = Butina.ClusterData(dists, len(bfps), threshold, isDistData=True)
t2 = time.perf_counter()
with open(f"{out_dir}/butina.json", "w") as fh:
    json.dump([list(c) for c in clusters], fh)

print(
    json.dumps(
        {
            "targets": len(targets),
            "queries": len(queries),
            "matrix_s": matrix_s,
            "butina_n": len(bfps),
            "butina_dists_s": t1 - t0,
            "butina_cluster_s": t2 - t1,
            "butina_clusters": len(clusters),
        }
    )
)
