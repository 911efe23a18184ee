"""Seed-bagged LightGBM ensembles merged into one LightGBM model, so the ONNX export stays a single
TreeEnsemble node and serving is unchanged.

Averaging k boosters' raw scores equals one booster holding all their trees with every leaf value
divided by k (LightGBM's init score lives in the first tree's leaves, so it is averaged too). For
classifiers the average is taken on the log-odds, then the sigmoid.

The merge also moves every split threshold down to the largest float32 not above it: inputs are
float32, so `x <= t` is unchanged for LightGBM (which compares in double), but the ONNX TreeEnsemble
stores float32 thresholds, and a double threshold rounded *up* to float32 sends a feature value
equal to the rounded value down the other branch (that gave 1.0.0's VDss export a 2e-2 mismatch).
"""
from __future__ import annotations

import re

import lightgbm as lgb
import numpy as np


def _floor32(m: re.Match) -> str:
    t = np.array([float(v) for v in m.group(1).split()])
    t32 = t.astype(np.float32)
    t32 = np.where(t32.astype(np.float64) > t, np.nextafter(t32, np.float32(-np.inf)), t32)
    return "threshold=" + " ".join(repr(float(v)) for v in t32)


def merge_boosters(boosters: list[lgb.Booster]) -> lgb.Booster:
    """One Booster whose raw score is the mean of the given boosters' raw scores (same features/objective),
    with float32-exact thresholds (same predictions on float32 input). Also useful with one booster."""
    k = len(boosters)
    texts = [b.model_to_string() for b in boosters]
    header = texts[0][: texts[0].index("Tree=0\n")]
    header = re.sub(r"^tree_sizes=.*\n", "", header, flags=re.M)  # sizes change; LightGBM parses without them
    trees: list[str] = []
    for t in texts:
        body = t[t.index("Tree=0\n"): t.index("end of trees")]
        for block in re.split(r"\n(?=Tree=\d+\n)", body.strip("\n")):
            trees.append(block)
    out = []
    for i, block in enumerate(trees):
        block = re.sub(r"^Tree=\d+", f"Tree={i}", block)
        block = re.sub(r"^leaf_value=(.*)$", lambda m: "leaf_value=" + " ".join(repr(float(v) / k) for v in m.group(1).split()),
                       block, flags=re.M)
        out.append(re.sub(r"^threshold=(.*)$", _floor32, block, flags=re.M))
    tail = texts[0][texts[0].index("end of trees"):]
    return lgb.Booster(model_str=header + "\n\n".join(out) + "\n\n\n" + tail)


def mean_raw(models: list, x: np.ndarray) -> np.ndarray:
    """Mean raw score of fitted sklearn LightGBM models (each at its best iteration, if early-stopped)."""
    return np.mean([m.predict(x, raw_score=True) for m in models], axis=0)


def from_raw(raw: np.ndarray, binary: bool, log10: bool) -> np.ndarray:
    """Raw ensemble score -> the model-card output: P(class 1), or the property (10**x if trained on log10)."""
    if binary:
        return 1.0 / (1.0 + np.exp(-raw))
    return np.power(10.0, raw) if log10 else raw
