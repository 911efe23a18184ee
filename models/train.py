"""Trains, evaluates and exports the 22 ADMET models. Run through train.sh (one command, reproducible).

Evaluation (TDC protocol): for each seed 1..5 a model is fitted on a scaffold train split with early
stopping on a scaffold valid split, and scored with TDC's metric on the test set: the official
admet_group test set for the 13 classification endpoints; for the 9 regression endpoints, whose
official split is not available here, TDC's scaffold split of the full dataset with that seed and
frac [0.8, 0, 0.2]. The valid split is TDC's get_train_valid_split: scaffold split of train_val,
frac [0.875, 0.125, 0], same seed. The exported model is refitted on train_val (classification)
or the full dataset (regression) with the mean early-stopping tree count.
"""
from __future__ import annotations

import argparse
import fcntl
import hashlib
import json
import sys
import time
import warnings
from pathlib import Path

import lightgbm as lgb
import numpy as np
import onnxruntime as ort
import pandas as pd
from scipy.stats import spearmanr
from sklearn.metrics import average_precision_score, mean_absolute_error, r2_score, roc_auc_score

sys.path.insert(0, str(Path(__file__).parent))
warnings.filterwarnings("ignore", category=UserWarning)
import domain  # noqa: E402
import features as F  # noqa: E402
from endpoints import ENDPOINTS, Endpoint  # noqa: E402
from ensemble import from_raw, mean_raw, merge_boosters  # noqa: E402
from export_onnx import to_onnx  # noqa: E402
from params import CONFIGS, FALLBACK, FIXED, MEMBER_SEED_STEP, config_hash, lgbm_params  # noqa: E402
from splits import scaffold_split  # noqa: E402

ROOT = Path(__file__).resolve().parent
DATA = ROOT / "data"
OUT = ROOT / "onnx"
CACHE = ROOT / ".cache"
VERSION = "admet-lgbm-2.0.0"
SEEDS = (1, 2, 3, 4, 5)
MAX_TREES_FINAL = 2000  # bounds ONNX size and inference time
SELECTION = ROOT / "selection.json"


def load(ep: Endpoint) -> tuple[pd.DataFrame, pd.DataFrame | None]:
    """(train_val or full data, official test or None), rows in file order (the splits depend on it)."""
    off = DATA / "official_admet_group" / ep.dataset
    if off.exists():
        return pd.read_csv(off / "train_val.csv.gz"), pd.read_csv(off / "test.csv.gz")
    return pd.read_csv(DATA / f"{ep.dataset}.csv.gz")[["Drug", "Y"]], None


class FeatureCache:
    """Features of every SMILES seen, computed once (and kept on disk between runs)."""

    def __init__(self) -> None:
        CACHE.mkdir(exist_ok=True)
        self.path = CACHE / f"features-{F.spec_hash()[:12]}.npz"
        self.index: dict[str, int] = {}
        self.rows = np.zeros((0, F.LENGTH), dtype=np.float32)
        self.ok = np.zeros(0, dtype=bool)
        if self.path.exists():
            z = np.load(self.path, allow_pickle=False)
            self.index = {s: i for i, s in enumerate(z["smiles"].tolist())}
            self.rows, self.ok = z["x"], z["ok"]

    def add(self, smiles: list[str]) -> None:
        new = sorted(set(smiles) - self.index.keys())
        if not new:
            return
        x, ok = F.featurize_smiles(new)
        base = len(self.index)
        self.index.update({s: base + i for i, s in enumerate(new)})
        self.rows = np.concatenate([self.rows, x])
        self.ok = np.concatenate([self.ok, ok])
        np.savez_compressed(self.path, smiles=np.array(list(self.index.keys())), x=self.rows, ok=self.ok)

    def get(self, smiles: list[str]) -> tuple[np.ndarray, np.ndarray]:
        idx = np.array([self.index[s] for s in smiles], dtype=np.int64)
        return self.rows[idx], self.ok[idx]


def metric(ep: Endpoint, y: np.ndarray, score: np.ndarray) -> float:
    if ep.metric == "auroc":
        return float(roc_auc_score(y, score))
    if ep.metric == "auprc":
        return float(average_precision_score(y, score))
    if ep.metric == "spearman":
        return float(spearmanr(y, score).statistic)
    return float(mean_absolute_error(y, score))


def make_model(ep: Endpoint, config: str, seed: int, n_estimators: int | None = None):
    params = {**lgbm_params(config), "random_state": seed}
    if n_estimators is not None:
        params["n_estimators"] = n_estimators
    return lgb.LGBMClassifier(**params) if ep.task == "binary" else lgb.LGBMRegressor(**params)


def target(ep: Endpoint, y: np.ndarray) -> np.ndarray:
    return np.log10(y) if ep.log10 else y


def scores(ep: Endpoint, seed: int, y: np.ndarray, va: list[int], ty: np.ndarray, raw_va: np.ndarray, raw_te: np.ndarray, trees: int) -> dict:
    binary = ep.task == "binary"
    score = from_raw(raw_te, binary, ep.log10)
    res = {"seed": seed, "valid": metric(ep, y[va], from_raw(raw_va, binary, ep.log10)), "score": metric(ep, ty, score), "trees": trees}
    if ep.task == "regression":  # comparable to ADMET-AI's published MAE / R^2 (original units)
        res["mae"] = float(mean_absolute_error(ty, score))
        res["r2"] = float(r2_score(ty, score))
    return res


def fit_eval(ep: Endpoint, config: str, x: np.ndarray, y: np.ndarray, split: tuple[list[int], list[int]],
             tx: np.ndarray, ty: np.ndarray, seed: int) -> tuple[dict, dict]:
    """One seed: fit on split[0] with early stopping on split[1]; validation and TDC test metric.
    An ensemble config fits its members with seeds seed, seed+1000, ...; the second result is the
    first member alone (= the base config), so evaluating an ensemble also evaluates its base."""
    tr, va = split
    models = []
    for j in range(CONFIGS[config].get("members", 1)):
        model = make_model(ep, config, seed + MEMBER_SEED_STEP * j)
        model.fit(x[tr], target(ep, y[tr]), eval_X=x[va], eval_y=target(ep, y[va]),
                  callbacks=[lgb.early_stopping(CONFIGS[config]["early_stop"], verbose=False)])
        models.append(model)
    trees = [int(m.best_iteration_ or CONFIGS[config]["n_estimators"]) for m in models]
    res = scores(ep, seed, y, va, ty, mean_raw(models, x[va]), mean_raw(models, tx), int(round(np.mean(trees))))
    first = scores(ep, seed, y, va, ty, mean_raw(models[:1], x[va]), mean_raw(models[:1], tx), trees[0])
    return res, first


def eval_cache_path(ep: Endpoint, config: str) -> Path:
    return CACHE / "eval" / f"{ep.key}-{config}-{config_hash(config)}-{F.spec_hash()[:8]}.json"


def evaluate(ep: Endpoint, cache: FeatureCache, configs: list[str]) -> tuple[dict[str, list[dict]], np.ndarray, np.ndarray, tuple]:
    """Five-seed evaluation of each config (cached); returns ({config: per-seed results}, final x, y, domain calibration pair)."""
    df, test = load(ep)
    cache.add(df["Drug"].tolist() + ([] if test is None else test["Drug"].tolist()))
    x, ok = cache.get(df["Drug"].tolist())
    df, x = df[ok].reset_index(drop=True), x[ok]
    y = df["Y"].to_numpy(dtype=np.float64)
    smiles = df["Drug"].tolist()
    out = {c: json.loads(eval_cache_path(ep, c).read_text()) for c in configs if eval_cache_path(ep, c).exists()}
    calib = None
    # an ensemble's first member is its base config: evaluating the ensemble evaluates the base for free
    bases = {c.split("x")[0]: c for c in configs if CONFIGS[c].get("members", 1) > 1}
    filled = [b for b in bases if b in CONFIGS and len(out.get(b, [])) < len(SEEDS)]
    for b in filled:
        out[b] = []
    for seed in SEEDS:
        if test is not None:
            tx, tok = cache.get(test["Drug"].tolist())
            tx, ty, rows = tx[tok], test[tok]["Y"].to_numpy(dtype=np.float64), list(range(len(y)))
        else:
            rows, _, te = scaffold_split(smiles, seed, (0.8, 0.0, 0.2))
            tx, ty = x[te], y[te]
        calib = calib or (x[rows], tx)
        todo = [c for c in configs if (c not in out or len(out[c]) < len(SEEDS)) and c not in filled]
        if not todo:
            continue
        tr, va, _ = scaffold_split([smiles[i] for i in rows], seed, (0.875, 0.125, 0.0))
        xs, ys = x[rows], y[rows]
        for c in todo:
            res, first = fit_eval(ep, c, xs, ys, (tr, va), tx, ty, seed)
            out.setdefault(c, []).append(res)
            if c in bases.values() and c.split("x")[0] in filled:
                out[c.split("x")[0]].append(first)
            print(f"  {ep.key} {c} seed {seed}: valid={res['valid']:.4f} test {ep.metric}={res['score']:.4f} trees={res['trees']}", flush=True)
    for c in {*configs, *filled}:
        eval_cache_path(ep, c).parent.mkdir(parents=True, exist_ok=True)
        eval_cache_path(ep, c).write_text(json.dumps(out[c]))
    return out, x, y, calib


def export(ep: Endpoint, config: str, x: np.ndarray, y: np.ndarray, trees: int) -> dict:
    """Final fit (all members of an ensemble, merged into one booster), ONNX export, onnxruntime-vs-native check."""
    binary = ep.task == "binary"
    models = [make_model(ep, config, MEMBER_SEED_STEP * j, n_estimators=trees).fit(x, target(ep, y))
              for j in range(CONFIGS[config].get("members", 1))]
    booster = merge_boosters([m.booster_ for m in models])
    want = from_raw(mean_raw(models, x), binary, ep.log10)
    proto = to_onnx(booster, F.LENGTH, binary, ep.log10, ep.key)
    path = OUT / f"{ep.key}.onnx"
    path.write_bytes(proto.SerializeToString())
    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    got = sess.run(["score"], {"features": x})[0]
    rel = np.abs(got - want) / np.maximum(1.0, np.abs(want))
    print(f"  {ep.key}: exported {path.stat().st_size / 1e6:.2f} MB, max |onnx-native| (rel) {rel.max():.2e}", flush=True)
    assert rel.max() <= 1e-5, f"{ep.key}: ONNX differs from native LightGBM by {rel.max():.2e}"
    return {"config": config, "lightgbm_params": dict(CONFIGS[config]), "file": path.name,
            "sha256": hashlib.sha256(path.read_bytes()).hexdigest(), "trees": trees * len(models),
            "n_train": int(len(y)), "onnx_vs_native_max_rel_diff": float(rel.max())}


def summarize(results: list[dict], key: str) -> dict:
    v = np.array([r[key] for r in results])
    return {"mean": round(float(v.mean()), 4), "sd": round(float(v.std()), 4), "seeds": [round(float(a), 4) for a in v]}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", nargs="*", help="endpoint keys to (re)train; default all")
    args = ap.parse_args()
    OUT.mkdir(exist_ok=True)
    man_path, dom_path = OUT / "manifest.json", OUT / "domain.json"
    manifest, doms = {"endpoints": {}}, {"endpoints": {}}
    cache = FeatureCache()
    selection = json.loads(SELECTION.read_text())["endpoints"] if SELECTION.exists() else {}
    for ep in ENDPOINTS:
        if args.only and ep.key not in args.only:
            continue
        t0 = time.time()
        config = selection.get(ep.key, {}).get("config", FALLBACK)
        evals, x, y, calib = evaluate(ep, cache, [config])
        results = evals[config]
        trees = int(min(MAX_TREES_FINAL, max(50, round(np.mean([r["trees"] for r in results])))))
        entry = {"dataset": ep.dataset, "task": ep.task, "units": ep.units, "output": "score",
                 "output_transform": "10**x applied inside the graph" if ep.log10 else "none",
                 "trained_on": "log10(y)" if ep.log10 else "y", "metric": ep.metric,
                 "valid": summarize(results, "valid"), "test": summarize(results, "score"), **export(ep, config, x, y, trees)}
        if ep.task == "regression":
            entry["test_mae_original_units"] = summarize(results, "mae")
            entry["test_r2_original_units"] = summarize(results, "r2")
        manifest["endpoints"][ep.key] = entry
        doms["endpoints"][ep.key] = domain.domain_record(x, F.N_BITS, F.DESCRIPTOR_NAMES, *calib)
        print(f"  {ep.key} done in {time.time() - t0:.0f}s", flush=True)
    # Read the other endpoints' entries only now, under a lock, so that runs on disjoint --only sets
    # can train in parallel processes and still leave one consistent manifest.
    with open(OUT / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        write_manifests(args, manifest, doms, man_path, dom_path)


def write_manifests(args, manifest: dict, doms: dict, man_path: Path, dom_path: Path) -> None:
    if args.only:
        for path, into in ((man_path, manifest), (dom_path, doms)):
            if path.exists():
                old = json.loads(path.read_text())
                if old.get("feature_spec_sha256") == F.spec_hash():
                    into["endpoints"] = {**old["endpoints"], **into["endpoints"]}
    order = [e.key for e in ENDPOINTS if e.key in manifest["endpoints"]]
    common = {"version": VERSION, "rdkit_version": F.SPEC["rdkit_version"], "feature_spec": "models/features.json",
              "feature_spec_sha256": F.spec_hash(), "n_features": F.LENGTH, "input": "features", "output": "score"}
    manifest = {**common, "domain_file": dom_path.name, "lightgbm_fixed_params": {k: v for k, v in FIXED.items() if k != "n_jobs"},
                "endpoints": {k: manifest["endpoints"][k] for k in order}}
    doms = {**common, "method": domain.__doc__.strip(), "box_descriptors": list(domain.BOX_DESCRIPTORS),
            "min_bit_count": domain.MIN_BIT_COUNT, "quantile": domain.QUANTILE,
            "endpoints": {k: doms["endpoints"][k] for k in order}}
    man_path.write_text(json.dumps(manifest, indent=1) + "\n")
    dom_path.write_text(json.dumps(doms, indent=1) + "\n")


if __name__ == "__main__":
    main()
