"""ADMET-AI peer of bench/admet/run.ts: predicts the same molecules on one CPU thread.

usage: python admet_ai_peer.py MOLECULES.smi OUT.csv OUT.json
Writes the 22 TDC endpoints (columns lower-cased, which are our column names) and timings.
Run in the venv .tools/admetai (pip install torch==2.13.0 admet-ai).
"""
import json
import os
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import torch  # noqa: E402

torch.set_num_threads(1)
torch.set_num_interop_threads(1)

from admet_ai import ADMETModel  # noqa: E402
import admet_ai  # noqa: E402

ENDPOINTS = [
    "Caco2_Wang", "Clearance_Hepatocyte_AZ", "Clearance_Microsome_AZ", "Half_Life_Obach", "LD50_Zhu",
    "Lipophilicity_AstraZeneca", "PPBR_AZ", "Solubility_AqSolDB", "VDss_Lombardo", "AMES", "BBB_Martins",
    "Bioavailability_Ma", "CYP2C9_Substrate_CarbonMangels", "CYP2C9_Veith", "CYP2D6_Substrate_CarbonMangels",
    "CYP2D6_Veith", "CYP3A4_Substrate_CarbonMangels", "CYP3A4_Veith", "DILI", "hERG", "HIA_Hou", "Pgp_Broccatelli",
]


def main() -> None:
    src, out_csv, out_json = sys.argv[1:4]
    with open(src) as f:
        smiles = [line.split()[0] for line in f if line.strip()]
    t0 = time.perf_counter()
    model = ADMETModel(num_workers=0)
    load_s = time.perf_counter() - t0
    model.predict(smiles=smiles[:64])  # warm-up, not timed
    t1 = time.perf_counter()
    c1 = time.process_time()
    preds = model.predict(smiles=smiles)
    predict_s = time.perf_counter() - t1
    cpu_s = time.process_time() - c1
    table = preds[ENDPOINTS].copy()
    table.columns = [c.lower() for c in ENDPOINTS]
    table.insert(0, "smiles", smiles)
    table.to_csv(out_csv, index=False)
    with open(out_json, "w") as f:
        json.dump({
            "tool": "admet-ai",
            "version": getattr(admet_ai, "__version__", "unknown"),
            "torch": torch.__version__,
            "threads": torch.get_num_threads(),
            "molecules": len(smiles),
            "load_seconds": load_s,
            "predict_seconds": predict_s,
            "molecules_per_second": len(smiles) / predict_s,
            # CPU time of all the process's threads: robust to other load on a shared machine.
            "cpu_seconds": cpu_s,
            "molecules_per_cpu_second": len(smiles) / cpu_s,
        }, f, indent=1)


if __name__ == "__main__":
    main()
