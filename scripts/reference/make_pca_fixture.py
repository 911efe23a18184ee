"""Generates test/fixtures/pca-reference.json: scikit-learn PCA of Morgan fingerprints, the reference
for the web app's in-browser PCA (web/src/charts/pca.ts).

Input: the first 150 fingerprints of test/fixtures/tanimoto-reference.json (Python RDKit Morgan radius 2,
2048 bits, as sorted on-bit indices; molecules are ChEMBL approved drugs, CC BY-SA 3.0). Output: the
on-bit lists, the scores of the first two components and their explained-variance ratios from
sklearn.decomposition.PCA(n_components=2, svd_solver="full"). The sign of each component is fixed by
the web app's rule, applied here explicitly so the fixture does not depend on scikit-learn's own
convention: the loading of largest magnitude (first index on ties) is positive.

Run: python3 -m venv .tools/pca-ref && .tools/pca-ref/bin/pip install -r scripts/reference/requirements-pca.txt
     .tools/pca-ref/bin/python scripts/reference/make_pca_fixture.py
"""
import json
from pathlib import Path

import numpy as np
import sklearn
from sklearn.decomposition import PCA

ROOT = Path(__file__).resolve().parents[2]
src = json.loads((ROOT / "test/fixtures/tanimoto-reference.json").read_text())
rows = [m["on_bits"] for m in src["molecules"][:150]]
X = np.zeros((len(rows), 2048))
for i, bits in enumerate(rows):
    X[i, bits] = 1.0

pca = PCA(n_components=2, svd_solver="full").fit(X)
scores = pca.transform(X)
for k in range(2):
    loading = pca.components_[k]
    big = int(np.argmax(np.abs(loading)))
    if loading[big] < 0:
        scores[:, k] = -scores[:, k]

out = {
    "source": "first 150 fingerprints of test/fixtures/tanimoto-reference.json",
    "numpy": np.__version__,
    "scikit_learn": sklearn.__version__,
    "dims": 2048,
    "on_bits": rows,
    "x": [round(float(v), 10) for v in scores[:, 0]],
    "y": [round(float(v), 10) for v in scores[:, 1]],
    "explained": [round(float(v), 10) for v in pca.explained_variance_ratio_],
}
(ROOT / "test/fixtures/pca-reference.json").write_text(json.dumps(out, separators=(",", ":")) + "\n")
print("wrote test/fixtures/pca-reference.json", out["explained"])
