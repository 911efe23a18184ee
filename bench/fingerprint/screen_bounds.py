"""How tight each per-row screen is: the measurement behind the 32-byte screen of
engine/search/wasm/kernel-blocks.ts (figures in bench/fingerprint/README.md).

For seeded real queries of bench/out/fps-real.u8 (make_fps.py), it computes the exact top-100
Tanimoto k-th score over all 802,238 rows, then for each screen the share of rows that BitBound
leaves AND whose screen bound still reaches that k-th score (the rows a scan would have to read
even with the final k-th score known from the start). A screen splits the 2048 bits into blocks
and stores per row either the block popcounts (u8), saturated counts of 4 or 2 bits (a saturated
value counts as unbounded), or 1 bit (block non-empty); the bound is sum_j min(qa_j, b_j) with
the query's exact block counts qa_j. Names: <bits per block count>x<blocks>(<bytes per row>).

Usage: .tools/pyoff/bin/python bench/fingerprint/screen_bounds.py [queries=20]   (a few minutes)
"""
import sys
import time

import numpy as np

raw = np.fromfile("bench/out/fps-real.u8", dtype=np.uint8).reshape(-1, 256)
n = raw.shape[0]
CH = 50000
SIZES = [4, 8, 16, 32, 64]
SCHEMES = {  # name: (bits per block, saturation: None = exact u8 counts, s = values >= s unbounded)
    "u8x64(64B)": (32, None),
    "4bx128(64B)": (16, 15),
    "2bx256(64B)": (8, 3),
    "1bx512(64B)": (4, 1),
    "2bx128(32B)": (16, 3),
    "1bx256(32B)": (8, 1),
    "2bx64(16B)": (32, 3),
    "1bx128(16B)": (16, 1),
    "1bx64(8B)": (32, 1),
    "2bx32(8B)": (64, 3),
}
LUT = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1).sum(1).astype(np.uint8)

t = time.time()
counts = {bs: np.empty((n, 2048 // bs), np.uint8) for bs in SIZES}
pop = np.empty(n, np.int32)
for s in range(0, n, CH):
    b = np.unpackbits(raw[s : s + CH], axis=1, bitorder="little")
    pop[s : s + CH] = b.sum(1)
    for bs in SIZES:
        counts[bs][s : s + CH] = b.reshape(b.shape[0], -1, bs).sum(2)
print(f"block counts of {n} rows in {time.time() - t:.0f}s", flush=True)

rng = np.random.default_rng(12345)
nq = int(sys.argv[1]) if len(sys.argv) > 1 else 20
qs = [r for r in rng.integers(0, n, 10 * nq) if pop[r] > 0][:nq]
left = {k: [] for k in SCHEMES}
bitbound = []
for q in qs:
    c = np.empty(n, np.int32)
    for s in range(0, n, CH):
        c[s : s + CH] = LUT[raw[s : s + CH] & raw[q]].sum(1, dtype=np.int32)
    a = pop[q]
    kth = np.sort(c / np.maximum(a + pop - c, 1))[-100]
    bb = np.minimum(a, pop) / np.maximum(np.maximum(a, pop), 1) >= kth
    bitbound.append(bb.mean())
    for name, (bs, sat) in SCHEMES.items():
        qa = counts[bs][q].astype(np.int16)
        m = np.empty(n, np.int32)
        for s in range(0, n, CH):
            rb = counts[bs][s : s + CH].astype(np.int16)
            if sat is not None:
                rb = np.where(rb >= sat, 10000, rb)
            m[s : s + CH] = np.minimum(rb, qa[None, :]).sum(1)
        m = np.minimum(m, np.minimum(a, pop))
        left[name].append((bb & (m / np.maximum(a + pop - m, 1) >= kth)).mean())
    print(f"query row {q}: popcount {a}, k-th score {kth:.3f}, BitBound leaves {bitbound[-1]:.1%}", flush=True)
print(f"\nrows left at the final k-th score (k=100, {len(qs)} queries): mean / median / max")
print(f"  BitBound alone  {np.mean(bitbound):.2%} / {np.median(bitbound):.2%} / {np.max(bitbound):.2%}")
for name, v in left.items():
    print(f"  {name:12s}    {np.mean(v):.3%} / {np.median(v):.3%} / {np.max(v):.3%}")
