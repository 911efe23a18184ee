"""Writes models/README.md (the model card) from onnx/manifest.json and ADMET-AI's published metrics."""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parent
TEMPLATE = (ROOT / "card-template.md").read_text()
METRIC_LABEL = {"mae": "MAE ↓", "spearman": "Spearman ↑", "auroc": "AUROC ↑", "auprc": "AUPRC ↑"}


def admet_ai(meta: pd.DataFrame, dataset: str, metric: str) -> str:
    row = meta[meta["id"] == dataset]
    if row.empty:
        return "–"
    r = row.iloc[0]
    col = {"mae": "MAE", "auroc": "AUROC", "auprc": "AUPRC"}.get(metric)
    if col:
        return f"{r[col]:.3f}"
    return f"n/a (MAE {r['MAE']:.3g}, R² {r['R^2']:.3f})"


def configs_table(man: dict) -> str:
    """The distinct settings used by the exported models, one line each."""
    used = {e["config"]: e["lightgbm_params"] for e in man["endpoints"].values()}
    return "\n".join(f"  - `{name}`: `{json.dumps(p)}`" for name, p in sorted(used.items()))


def main() -> None:
    man = json.loads((ROOT / "onnx" / "manifest.json").read_text())
    meta = pd.read_csv(ROOT / "data" / "admet_ai_property_metadata.csv.gz")
    rows = ["| endpoint (API key) | TDC dataset | task | output units | TDC metric | ours (mean ± sd, 5 seeds) | ADMET-AI | ours, original units: MAE / R² | setting | trees | ONNX KB |",
            "|---|---|---|---|---|---|---|---|---|---|---|"]
    total = 0
    for key, e in man["endpoints"].items():
        size = (ROOT / "onnx" / e["file"]).stat().st_size
        total += size
        extra = "–"
        if e["task"] == "regression":
            extra = f"{e['test_mae_original_units']['mean']:.3g} / {e['test_r2_original_units']['mean']:.3f}"
        rows.append(f"| `{key}` | {e['dataset']} | {e['task']} | {e['units']} | {METRIC_LABEL[e['metric']]} | "
                    f"{e['test']['mean']:.3f} ± {e['test']['sd']:.3f} | {admet_ai(meta, e['dataset'], e['metric'])} | {extra} | "
                    f"`{e['config']}` | {e['trees']} | {size // 1024} |")
    text = (TEMPLATE.replace("{{VERSION}}", man["version"]).replace("{{TABLE}}", "\n".join(rows))
            .replace("{{TOTAL_MB}}", f"{total / 1e6:.1f}").replace("{{SPEC_SHA}}", man["feature_spec_sha256"][:16])
            .replace("{{CONFIGS}}", configs_table(man)).replace("{{FIXED}}", json.dumps(man["lightgbm_fixed_params"])))
    (ROOT / "README.md").write_text(text)
    print(f"wrote README.md ({len(man['endpoints'])} endpoints, {total / 1e6:.1f} MB of ONNX)")


if __name__ == "__main__":
    main()
