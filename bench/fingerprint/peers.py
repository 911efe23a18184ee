"""Peers for bench/fingerprint/run.ts on the same fingerprint file and query rows, as a server the
benchmark calls once per query, so our scan and the peer's alternate query by query and see the
same machine load.

FPSim2 (in-memory engine, its C++ GenericSearch with its own BitBound ranges): the fingerprints
are put into FPSim2's in-memory layout ([id, 32 x u64, popcount] rows sorted by popcount, plus
its popcount bins) directly instead of going through create_db_file, which would recompute the
fingerprints from SMILES and could not represent the perturbed rows. The word layout equals
FPSim2's own (BitStrToIntList of ExplicitBitVect.ToBitString), checked on the first rows.
RDKit: BulkTanimotoSimilarity over a list of ExplicitBitVect, then numpy top-k (the list is built
on the first RDKit request).

Usage: python peers.py <fps.u8> <queries.json> <k>
Then one request per stdin line, one JSON answer per stdout line:
  fpsim2 <query index> <workers>  -> {"ms", "cpu_ms", "scores"}   (FPSim2 top_k, threshold 0)
  rdkit <query index>             -> {"ms", "cpu_ms", "scores"}
The first line written is {"ready": true, "n": rows, "load_s": seconds}.
"""
import json
import sys
import time

import numpy as np
from rdkit import DataStructs
from FPSim2 import FPSim2Engine
from FPSim2.FPSim2lib.utils import BitStrToIntList
from FPSim2.io.backends.base import BaseStorageBackend

path, qpath, k = sys.argv[1], sys.argv[2], int(sys.argv[3])
raw = np.fromfile(path, dtype=np.uint8).reshape(-1, 256)
n = raw.shape[0]
qrows = json.load(open(qpath))

REV = np.array([int(f"{i:08b}"[::-1], 2) for i in range(256)], np.uint8)


def fpsim2_words(a):
    return REV[a].reshape(-1, 32, 8)[:, :, ::-1].copy().reshape(-1, 256).view("<u8")


t0 = time.perf_counter()
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
queries = [DataStructs.CreateFromBinaryText(raw[q].tobytes()) for q in qrows]
eng.top_k(queries[0], k, 0.0, n_workers=1)  # warm-up
ebvs = None


def timed(fn):
    """Times fn alone (not the conversion of its scores to JSON)."""
    t, c = time.perf_counter(), time.process_time()
    scores = fn()
    ms, cpu_ms = 1000 * (time.perf_counter() - t), 1000 * (time.process_time() - c)
    return {"ms": ms, "cpu_ms": cpu_ms, "scores": [float(x) for x in scores]}


def rdkit_top(q):
    sims = np.array(DataStructs.BulkTanimotoSimilarity(q, ebvs))
    top = np.argpartition(-sims, k)[:k]
    return sims[top[np.argsort(-sims[top], kind="stable")]]


print(json.dumps({"ready": True, "n": n, "load_s": time.perf_counter() - t0}), flush=True)
for line in sys.stdin:
    parts = line.split()
    if not parts:
        continue
    q = queries[int(parts[1])]
    if parts[0] == "fpsim2":
        workers = int(parts[2])
        out = timed(lambda: eng.top_k(q, k, 0.0, n_workers=workers)["coeff"])
    elif parts[0] == "rdkit":
        if ebvs is None:
            ebvs = [DataStructs.CreateFromBinaryText(row.tobytes()) for row in raw]
        out = timed(lambda: rdkit_top(q))
    else:
        out = {"error": f"unknown request {parts[0]}"}
    print(json.dumps(out), flush=True)
