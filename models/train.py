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
from export_onnx import native_score, to_onnx  # noqa: E402
from splits import scaffold_split  # noqa: E402

ROOT = Path(__file__).resolve().parent
DATA = ROOT / "data"
OUT = ROOT / "onnx"
CACHE = ROOT / ".cache"
VERSION = "admet-lgbm-1.0.0"
SEEDS = (1, 2, 3, 4, 5)
THREADS = 1  # OpenMP spin-waits badly on shared, oversubscribed cores
PARAMS = dict(learning_rate=0.1, num_leaves=31, min_child_samples=10, colsample_bytree=0.2, subsample=0.8,
              subsample_freq=1, reg_lambda=1.0, n_estimators=500, max_bin=63, verbose=-1,
              deterministic=True, force_col_wise=True, n_jobs=THREADS)
EARLY_STOP = 50
MAX_TREES_FINAL = 800  # bounds ONNX size (~30 MB for all 22)


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


def make_model(ep: Endpoint, seed: int, n_estimators: int | None = None):
    params = {**PARAMS, "random_state": seed}
    if n_estimators is not None:
        params["n_estimators"] = n_estimators
    return lgb.LGBMClassifier(**params) if ep.task == "binary" else lgb.LGBMRegressor(**params)


def target(ep: Endpoint, y: np.ndarray) -> np.ndarray:
    return np.log10(y) if ep.log10 else y


def fit_eval(ep: Endpoint, x: np.ndarray, y: np.ndarray, smiles: list[str], tx: np.ndarray, ty: np.ndarray, seed: int) -> dict:
    """One seed: scaffold train/valid split of (x, y), early stopping, TDC metric on (tx, ty)."""
    tr, va, _ = scaffold_split(smiles, seed, (0.875, 0.125, 0.0))
    model = make_model(ep, seed)
    model.fit(x[tr], target(ep, y[tr]), eval_X=x[va], eval_y=target(ep, y[va]),
              callbacks=[lgb.early_stopping(EARLY_STOP, verbose=False)])
    score = native_score(model, tx, ep.task == "binary", ep.log10)
    res = {"seed": seed, "score": metric(ep, ty, score), "trees": int(model.best_iteration_ or PARAMS["n_estimators"])}
    if ep.task == "regression":  # comparable to ADMET-AI's published MAE / R^2 (original units)
        res["mae"] = float(mean_absolute_error(ty, score))
        res["r2"] = float(r2_score(ty, score))
    return res


def evaluate(ep: Endpoint, cache: FeatureCache) -> tuple[list[dict], np.ndarray, np.ndarray, np.ndarray]:
    """Five-seed evaluation; returns (per-seed results, final training x, y, domain calibration pair)."""
    df, test = load(ep)
    cache.add(df["Drug"].tolist() + ([] if test is None else test["Drug"].tolist()))
    x, ok = cache.get(df["Drug"].tolist())
    df, x = df[ok].reset_index(drop=True), x[ok]
    y = df["Y"].to_numpy(dtype=np.float64)
    smiles = df["Drug"].tolist()
    results, calib = [], None
    for seed in SEEDS:
        if test is not None:
            tx, tok = cache.get(test["Drug"].tolist())
            tv = test[tok]
            res = fit_eval(ep, x, y, smiles, tx[tok], tv["Y"].to_numpy(dtype=np.float64), seed)
            calib = calib or (x, tx[tok])
        else:
            tr, _, te = scaffold_split(smiles, seed, (0.8, 0.0, 0.2))
            res = fit_eval(ep, x[tr], y[tr], [smiles[i] for i in tr], x[te], y[te], seed)
            calib = calib or (x[tr], x[te])
        results.append(res)
        print(f"  {ep.key} seed {seed}: {ep.metric}={res['score']:.4f} trees={res['trees']}", flush=True)
    return results, x, y, calib


def export(ep: Endpoint, x: np.ndarray, y: np.ndarray, trees: int) -> dict:
    """Final fit, ONNX export, and the onnxruntime-vs-native equality check."""
    model = make_model(ep, 0, n_estimators=trees)
    model.fit(x, target(ep, y))
    binary = ep.task == "binary"
    proto = to_onnx(model, F.LENGTH, binary, ep.log10, ep.key)
    path = OUT / f"{ep.key}.onnx"
    path.write_bytes(proto.SerializeToString())
    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    got = sess.run(["score"], {"features": x})[0]
    want = native_score(model, x, binary, ep.log10)
    rel = np.abs(got - want) / np.maximum(1.0, np.abs(want))
    print(f"  {ep.key}: exported {path.stat().st_size / 1e6:.2f} MB, max |onnx-native| (rel) {rel.max():.2e}", flush=True)
    return {"file": path.name, "sha256": hashlib.sha256(path.read_bytes()).hexdigest(), "trees": trees,
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
    manifest = json.loads(man_path.read_text()) if man_path.exists() and args.only else {"endpoints": {}}
    doms = json.loads(dom_path.read_text()) if dom_path.exists() and args.only else {"endpoints": {}}
    cache = FeatureCache()
    for ep in ENDPOINTS:
        if args.only and ep.key not in args.only:
            continue
        t0 = time.time()
        results, x, y, calib = evaluate(ep, cache)
        trees = int(min(MAX_TREES_FINAL, max(50, round(np.mean([r["trees"] for r in results])))))
        entry = {"dataset": ep.dataset, "task": ep.task, "units": ep.units, "output": "score",
                 "output_transform": "10**x applied inside the graph" if ep.log10 else "none",
                 "trained_on": "log10(y)" if ep.log10 else "y", "metric": ep.metric,
                 "test": summarize(results, "score"), **export(ep, x, y, trees)}
        if ep.task == "regression":
            entry["test_mae_original_units"] = summarize(results, "mae")
            entry["test_r2_original_units"] = summarize(results, "r2")
        manifest["endpoints"][ep.key] = entry
        doms["endpoints"][ep.key] = domain.domain_record(x, F.N_BITS, F.DESCRIPTOR_NAMES, *calib)
        print(f"  {ep.key} done in {time.time() - t0:.0f}s", flush=True)
    order = [e.key for e in ENDPOINTS if e.key in manifest["endpoints"]]
    common = {"version": VERSION, "rdkit_version": F.SPEC["rdkit_version"], "feature_spec": "models/features.json",
              "feature_spec_sha256": F.spec_hash(), "n_features": F.LENGTH, "input": "features", "output": "score"}
    manifest = {**common, "domain_file": dom_path.name, "lightgbm_params": {k: v for k, v in PARAMS.items() if k != "n_jobs"},
                "endpoints": {k: manifest["endpoints"][k] for k in order}}
    doms = {**common, "method": domain.__doc__.strip(), "box_descriptors": list(domain.BOX_DESCRIPTORS),
            "min_bit_count": domain.MIN_BIT_COUNT, "quantile": domain.QUANTILE,
            "endpoints": {k: doms["endpoints"][k] for k in order}}
    man_path.write_text(json.dumps(manifest, indent=1) + "\n")
    dom_path.write_text(json.dumps(doms, indent=1) + "\n")


if __name__ == "__main__":
    main()
