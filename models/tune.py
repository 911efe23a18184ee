"""Chooses each endpoint's LightGBM setting from validation scores only (never the test sets).

For every endpoint, every candidate of its task family (params.CANDIDATES) is evaluated on the five
TDC validation folds (scaffold split of train_val, seeds 1-5; train.evaluate caches the runs). Per
family, the candidate with the best mean rank of mean validation score over the family's endpoints
wins (candidates not run on every endpoint of the family are listed, not ranked); an endpoint keeps the fallback ("v1", the 1.0.0 setting) when the winner validates worse on
it. Writes selection.json, which train.py reads. Test scores are computed alongside (same fits)
but are not read here.

    python tune.py [--only KEY ...]    # evaluate (can run as several processes on disjoint keys)
    python tune.py --select            # write selection.json from the cached evaluations
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
import train as T  # noqa: E402
from endpoints import ENDPOINTS, Endpoint  # noqa: E402
from params import CANDIDATES, CONFIGS, FALLBACK  # noqa: E402


def mean_valid(ep: Endpoint, config: str) -> float | None:
    """Mean validation score over seeds, oriented so that higher is better; None if not evaluated."""
    path = T.eval_cache_path(ep, config)
    if not path.exists():
        return None
    v = float(np.mean([r["valid"] for r in json.loads(path.read_text())]))
    return -v if ep.metric == "mae" else v


def select() -> dict:
    """Family winner by mean rank, then the per-endpoint fallback rule."""
    out = {"rule": __doc__.split("\n\n")[1].replace("\n", " ").strip(), "families": {}, "endpoints": {}}
    for family, cands in CANDIDATES.items():
        eps = [e for e in ENDPOINTS if e.task == family]
        table = {e.key: {c: mean_valid(e, c) for c in cands} for e in eps}
        partial = [c for c in cands if any(t[c] is None for t in table.values())]
        cands = [c for c in cands if c not in partial]  # ranked only where every endpoint has a score
        ranks = {c: [] for c in cands}
        for scores in table.values():
            order = sorted(cands, key=lambda c: -scores[c])
            for r, c in enumerate(order):
                ranks[c].append(r + 1)
        mean_rank = {c: float(np.mean(v)) for c, v in ranks.items()}
        winner = min(cands, key=lambda c: mean_rank[c])
        out["families"][family] = {"mean_rank": mean_rank, "winner": winner,
                                   "not_ranked_incomplete": {c: sum(t[c] is not None for t in table.values()) for c in partial}}
        for e in eps:
            s = table[e.key]
            chosen = winner if s[winner] >= s[FALLBACK] else FALLBACK
            sign = -1 if e.metric == "mae" else 1
            out["endpoints"][e.key] = {"config": chosen, "valid_mean": {c: round(sign * v, 4) for c, v in s.items() if v is not None}}
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--configs", nargs="*", help="evaluate only these candidates (default: the family's)")
    ap.add_argument("--select", action="store_true")
    args = ap.parse_args()
    if args.select:
        sel = select()
        T.SELECTION.write_text(json.dumps(sel, indent=1) + "\n")
        print(json.dumps(sel["families"], indent=1))
        return
    cache = T.FeatureCache()
    for ep in ENDPOINTS:
        if args.only and ep.key not in args.only:
            continue
        t0 = time.time()
        configs = [c for c in CANDIDATES[ep.task] if not args.configs or c in args.configs]
        T.evaluate(ep, cache, configs)
        print(f"{ep.key}: {time.time() - t0:.0f}s " + " ".join(f"{c}={mean_valid(ep, c):.4f}" for c in configs), flush=True)
    assert set(CONFIGS) >= {c for v in CANDIDATES.values() for c in v}


if __name__ == "__main__":
    main()
