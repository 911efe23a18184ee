"""Applicability domain: what the serving side needs to flag a molecule the model never saw the like of.

Two tests, both cheap at serving time and stored in onnx/domain.json:
- descriptor box: a few physchem descriptors must lie within the [min, max] of the training set;
- substructure coverage: the share of the molecule's Morgan bits that occur in fewer than
  MIN_BIT_COUNT training molecules ("unseen bits") must not exceed a per-endpoint threshold. The
  threshold is the 95th percentile of that share over the held-out scaffold-split test molecules
  (seed 1), i.e. 95 % of molecules with scaffolds new to the model still count as in domain.
The seen-bit mask is packed like MinimalLib's get_morgan_fp_as_uint8array (bit i -> byte i>>3, LSB first).
"""
from __future__ import annotations

import base64

import numpy as np

BOX_DESCRIPTORS = ("molecular_weight", "clogp", "topological_surface_area_mapping", "heavy_atoms", "h_bond_donor",
                   "h_bond_acceptors", "rotatable_bonds", "num_of_rings")
MIN_BIT_COUNT = 2
QUANTILE = 0.95


def seen_mask(bits: np.ndarray) -> np.ndarray:
    """Boolean [n_bits]: bit set in at least MIN_BIT_COUNT training rows."""
    return bits.sum(axis=0) >= MIN_BIT_COUNT


def unseen_fraction(bits: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Per row: on-bits outside the mask / on-bits (0 for a molecule without bits)."""
    on = bits.sum(axis=1)
    unseen = (bits & ~mask).sum(axis=1)
    return np.where(on > 0, unseen / np.maximum(on, 1), 0.0)


def pack_mask(mask: np.ndarray) -> str:
    return base64.b64encode(np.packbits(mask.astype(np.uint8), bitorder="little").tobytes()).decode()


def domain_record(train_x: np.ndarray, n_bits: int, names: list[str], calib_train: np.ndarray, calib_test: np.ndarray) -> dict:
    """The domain.json entry of one endpoint: box from train_x, threshold calibrated on a scaffold split."""
    bits = train_x[:, :n_bits] > 0.5
    box = {}
    for d in BOX_DESCRIPTORS:
        col = train_x[:, n_bits + names.index(d)].astype(np.float64)
        box[d] = [float(col.min()), float(col.max())]
    m = seen_mask(calib_train[:, :n_bits] > 0.5)
    frac = unseen_fraction(calib_test[:, :n_bits] > 0.5, m)
    threshold = float(np.quantile(frac, QUANTILE))
    return {"descriptor_box": box, "seen_bits_b64": pack_mask(seen_mask(bits)), "max_unseen_bit_fraction": round(threshold, 6)}


def in_domain(x: np.ndarray, rec: dict, n_bits: int, names: list[str]) -> np.ndarray:
    """Reference implementation of the serving-side test (used for the prediction fixture)."""
    mask = np.unpackbits(np.frombuffer(base64.b64decode(rec["seen_bits_b64"]), dtype=np.uint8), bitorder="little")[:n_bits].astype(bool)
    ok = unseen_fraction(x[:, :n_bits] > 0.5, mask) <= rec["max_unseen_bit_fraction"]
    for d, (lo, hi) in rec["descriptor_box"].items():
        v = x[:, n_bits + names.index(d)].astype(np.float64)
        ok &= (v >= lo) & (v <= hi)
    return ok
