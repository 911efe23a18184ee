"""Writes onnxruntime (Python) predictions and domain flags for the feature fixture molecules, the
reference that test/engine/admet/onnx-pool.test.ts checks the TypeScript serving path against."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import onnxruntime as ort

sys.path.insert(0, str(Path(__file__).parent))
import domain  # noqa: E402
import features as F  # noqa: E402

ROOT = Path(__file__).resolve().parent
FIXTURES = ROOT.parent / "test" / "engine" / "admet" / "fixtures"


def main() -> None:
    mols = json.loads((FIXTURES / "features-sample.json").read_text())["molecules"]
    x, ok = F.featurize_smiles([m["smiles"] for m in mols])
    assert ok.all()
    manifest = json.loads((ROOT / "onnx" / "manifest.json").read_text())
    doms = json.loads((ROOT / "onnx" / "domain.json").read_text())["endpoints"]
    out = {"model_version": manifest["version"], "smiles": [m["smiles"] for m in mols], "endpoints": {}}
    for key, entry in manifest["endpoints"].items():
        sess = ort.InferenceSession(str(ROOT / "onnx" / entry["file"]), providers=["CPUExecutionProvider"])
        score = sess.run(["score"], {"features": x})[0]
        flags = domain.in_domain(x, doms[key], F.N_BITS, F.DESCRIPTOR_NAMES)
        out["endpoints"][key] = {"score": [float(v) for v in score], "in_domain": flags.astype(int).tolist()}
    (FIXTURES / "predictions-sample.json").write_text(json.dumps(out))
    share = np.mean([np.mean(v["in_domain"]) for v in out["endpoints"].values()])
    print(f"wrote predictions for {len(mols)} molecules x {len(out['endpoints'])} endpoints (in domain: {share:.0%})")


if __name__ == "__main__":
    main()
