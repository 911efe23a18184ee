"""Peer timings for bench/fingerprint/run.ts on the same fingerprint file and query rows.

FPSim2 (in-memory engine, its C++ GenericSearch with its own BitBound ranges): the fingerprints
are put into FPSim2's in-memory layout ([id, 32 x u64, popcount] rows sorted by popcount, plus
its popcount bins) directly instead of going through create_db_file, which would recompute the
fingerprints from SMILES and could not represent the perturbed rows. The word layout equals
FPSim2's own (BitStrToIntList of ExplicitBitVect.ToBitString), checked on the first rows.
RDKit: BulkTanimotoSimilarity over a list of ExplicitBitVect, then numpy top-k.

Usage: python peers.py <fps.u8> <queries.json> <k> <threads> <rdkit_queries>
Prints one JSON object.
"""
import json
import sys
import time

import numpy as np
from rdkit import DataStructs
from FPSim2 import FPSim2Engine
from FPSim2.FPSim2lib.utils import BitStrToIntList
from FPSim2.io.backends.base import BaseStorageBackend

path, qpath, k, threads, rdkit_q = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
raw = np.fromfile(path, dtype=np.uint8).reshape(-1, 256)
n = raw.shape[0]
qrows = json.load(open(qpath))
out = {"n": n, "k": k}

REV = np.array([int(f"{i:08b}"[::-1], 2) for i in range(256)], np.uint8)


def fpsim2_words(a):
    return REV[a].reshape(-1, 32, 8)[:, :, ::-1].copy().reshape(-1, 256).view("<u8")


t = time.perf_counter()
pop = np.unpackbits(raw, axis=1).sum(axis=1).astype(np.uint64)
fps = np.empty((n, 34), dtype=np.uint64)
fps[:, 0] = np.arange(n, dtype=np.uint64)
fps[:, 1:33] = fpsim2_words(raw)
fps[:, 33] = pop
fps = fps[np.argsort(pop, kind="stable")]
for r in range(3):
    ebv = DataStructs.CreateFromBinaryText(raw[r].tobytes())
    assert (np.array(BitStrToIntList(ebv.ToBitString()), dtype=np.uint64) == fpsim2_words(raw[r : r + 1])[0]).all()


class Storage:
    pass


st = Storage()
st.fps, st.popcnt_bins = fps, BaseStorageBackend.calc_popcnt_bins(fps)
st.fp_type, st.fp_params, st.rdkit_ver, st.fpsim2_ver = "Morgan", {"radius": 2, "fpSize": 2048}, "", ""
eng = FPSim2Engine.__new__(FPSim2Engine)
eng.storage, eng.in_memory_fps = st, True
eng.empty_sim = np.ndarray((0,), dtype=[("mol_id", "<u4"), ("coeff", "<f4")])
eng.empty_subs = np.ndarray((0,), dtype="<u4")
out["fpsim2_load_s"] = time.perf_counter() - t

queries = [DataStructs.CreateFromBinaryText(raw[q].tobytes()) for q in qrows]
for workers in sorted({1, threads}):
    eng.top_k(queries[0], k, 0.0, n_workers=workers)  # warm-up
    times, cpu, tops = [], [], []
    for q in queries:
        t, c = time.perf_counter(), time.process_time()
        res = eng.top_k(q, k, 0.0, n_workers=workers)
        cpu.append(time.process_time() - c)
        times.append(time.perf_counter() - t)
        tops.append([float(x) for x in res["coeff"]])
    out[f"fpsim2_{workers}t_cpu_ms"] = 1000 * float(np.mean(cpu))
    out[f"fpsim2_{workers}t_ms"] = 1000 * float(np.mean(times))
    out[f"fpsim2_{workers}t_median_ms"] = 1000 * float(np.median(times))
    out["fpsim2_top_scores"] = tops

if rdkit_q > 0:
    t = time.perf_counter()
    ebvs = [DataStructs.CreateFromBinaryText(row.tobytes()) for row in raw]
    out["rdkit_load_s"] = time.perf_counter() - t
    times, cpu, tops = [], [], []
    for q in queries[:rdkit_q]:
        t, c = time.perf_counter(), time.process_time()
        sims = np.array(DataStructs.BulkTanimotoSimilarity(q, ebvs))
        top = np.argpartition(-sims, k)[:k]
        top = top[np.argsort(-sims[top], kind="stable")]
        cpu.append(time.process_time() - c)
        times.append(time.perf_counter() - t)
        tops.append([float(x) for x in sims[top]])
    out["rdkit_ms"] = 1000 * float(np.mean(times))
    out["rdkit_cpu_ms"] = 1000 * float(np.mean(cpu))
    out["rdkit_top_scores"] = tops
print(json.dumps(out))
