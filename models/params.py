"""LightGBM settings: the named candidate configurations and the fixed fitting options.

The candidates are compared by tune.py on the validation folds only (TDC get_train_valid_split,
seeds 1-5); selection.json records which one each endpoint uses and why. "v1" is the
admet-lgbm-1.0.0 setting, kept as the fallback so an endpoint never gets a model that validated worse.
"""
from __future__ import annotations

import hashlib
import json

THREADS = 1  # OpenMP spin-waits badly on shared, oversubscribed cores
FIXED = dict(subsample_freq=1, verbose=-1, deterministic=True, force_col_wise=True, n_jobs=THREADS)

# early_stop: patience in trees on the validation fold (scaled with the learning rate).
# ff 0.1 = each tree sees ~209 of the 2091 columns: with 2048 sparse bits and 43 dense descriptors,
# a low feature fraction decorrelates the trees and lets the descriptors be picked often enough.
CONFIGS: dict[str, dict] = {
    "v1": dict(learning_rate=0.1, num_leaves=31, min_child_samples=10, colsample_bytree=0.2, subsample=0.8,
               reg_lambda=1.0, n_estimators=500, max_bin=63, early_stop=50),
    "lr05-ff10": dict(learning_rate=0.05, num_leaves=31, min_child_samples=10, colsample_bytree=0.1, subsample=0.8,
                      reg_lambda=1.0, n_estimators=2000, max_bin=255, early_stop=100),
    "lr05-ff10-small": dict(learning_rate=0.05, num_leaves=15, min_child_samples=20, colsample_bytree=0.1,
                            subsample=0.8, reg_lambda=5.0, n_estimators=2000, max_bin=255, early_stop=100),
    "lr05-ff10-bal": dict(learning_rate=0.05, num_leaves=31, min_child_samples=10, colsample_bytree=0.1, subsample=0.8,
                          reg_lambda=1.0, n_estimators=2000, max_bin=255, early_stop=100, class_weight="balanced"),
    # more descriptor-driven endpoints (logD, solubility, binding) may want the dense columns more often
    "lr05-ff40": dict(learning_rate=0.05, num_leaves=31, min_child_samples=20, colsample_bytree=0.4, subsample=0.8,
                      reg_lambda=5.0, n_estimators=2000, max_bin=255, early_stop=100),
}
CANDIDATES = {"regression": ("v1", "lr05-ff10", "lr05-ff10-small", "lr05-ff40"),
              "binary": ("v1", "lr05-ff10", "lr05-ff10-small", "lr05-ff10-bal")}
FALLBACK = "v1"


def lgbm_params(name: str) -> dict:
    """Constructor kwargs of LGBMRegressor/LGBMClassifier for config `name` (without random_state)."""
    return {**{k: v for k, v in CONFIGS[name].items() if k not in ("early_stop", "members")}, **FIXED}


def config_hash(name: str) -> str:
    """Short hash of a config's settings: cached evaluations are reused only while it is unchanged."""
    return hashlib.sha256(json.dumps(CONFIGS[name], sort_keys=True).encode()).hexdigest()[:12]

# Seed-bagged ensemble: `members` copies of a setting with random_state seed, seed+1000, ...; their raw
# scores (log-odds / regression value) are averaged. Exported as ONE tree ensemble (ensemble.py).
CONFIGS["v1x3"] = {**CONFIGS["v1"], "members": 3}
CONFIGS["v1x5"] = {**CONFIGS["v1"], "members": 5}
MEMBER_SEED_STEP = 1000
# The ensembles validated ~1-2 % better (admet-lgbm-1.1.0) but cost 3-5x the inference time; since
# admet-lgbm-2.0.0 the serving budget (20x ADMET-AI's throughput, models/README.md) admits single
# models only, so tune.py no longer proposes them. They stay defined to reproduce 1.1.0.
