"""Generates test/fixtures/tsne-reference.json: the reference for engine/analysis/map/tsne.ts.

t-SNE is stochastic, so coordinates cannot be compared; what can be is (1) the joint
probabilities P that the perplexity calibration produces, which are deterministic, and (2) how well
an embedding keeps neighbours, measured by scikit-learn's trustworthiness. Pinned tools:
scripts/reference/requirements-analysis.txt (RDKit 2026.09.1, scikit-learn 1.9.1, numpy 2.4.6).

- joint_bits: sklearn.manifold._t_sne._joint_probabilities of the squared Jaccard distances
  (1 - RDKit BulkTanimotoSimilarity, Morgan radius 2, 2048 bits; TSNE squares precomputed and
  named-metric distances before calibrating) of the first 40 molecules of set B, perplexity 10,
  as the condensed upper triangle (row-major, i < j);
- joint_vectors: the same for squared Euclidean distances of the first 30 descriptor rows of
  test/fixtures/analysis-reference.json (scikit-learn squares Euclidean distances before
  calibrating), perplexity 8;
- embedding: sklearn TSNE(method="exact", metric="precomputed", init="random", perplexity=30,
  max_iter=1000, random_state=0) of the first 300 molecules of set B on Jaccard distances, with
  sklearn.manifold.trustworthiness(D, Y, n_neighbors=k, metric="precomputed") for k = 5 and 10,
  and the mean of those over random_state 0-4 (t-SNE maps vary with the seed by ~0.02 at k = 10).

Run:  python3 -m venv .tools/analysis-ref && .tools/analysis-ref/bin/pip install -r scripts/reference/requirements-analysis.txt
      .tools/analysis-ref/bin/python scripts/reference/make_tsne_fixture.py
"""
import json
from pathlib import Path

import numpy as np
import rdkit
import sklearn
from rdkit import Chem, DataStructs
from rdkit.Chem import rdFingerprintGenerator
from scipy.spatial.distance import squareform
from sklearn.manifold import TSNE, trustworthiness
from sklearn.manifold._t_sne import _joint_probabilities
from sklearn.metrics import pairwise_distances

ROOT = Path(__file__).resolve().parents[2]
ref = json.loads((ROOT / "test/fixtures/analysis-reference.json").read_text())
gen = rdFingerprintGenerator.GetMorganGenerator(radius=2, fpSize=2048)


def jaccard(smiles):
    fps = [gen.GetFingerprint(Chem.MolFromSmiles(s)) for s in smiles]
    return np.array([[1.0 - t for t in DataStructs.BulkTanimotoSimilarity(f, fps)] for f in fps])


def condensed(p):
    n = p.shape[0]
    return [float(p[i, j]) for i in range(n) for j in range(i + 1, n)]


d40 = jaccard(ref["set_b"]["smiles"][:40])
np.fill_diagonal(d40, 0.0)
# TSNE squares every distance it is given except metric="euclidean"'s (computed squared)
joint_bits = condensed(squareform(_joint_probabilities(d40**2, 10.0, 0)))

rows = np.array(ref["descriptor_table"]["rows"][:30], dtype=float)
d30 = pairwise_distances(rows, metric="euclidean", squared=True)
joint_vectors = condensed(squareform(_joint_probabilities(d30, 8.0, 0)))

d300 = jaccard(ref["set_b"]["smiles"][:300])
np.fill_diagonal(d300, 0.0)
tsne = TSNE(
    n_components=2,
    method="exact",
    metric="precomputed",
    init="random",
    perplexity=30.0,
    max_iter=1000,
    random_state=0,
)
Y = tsne.fit_transform(d300)
trust = {str(k): float(trustworthiness(d300, Y, n_neighbors=k, metric="precomputed")) for k in (5, 10)}
per_seed = []
for seed in range(5):
    Ys = TSNE(
        n_components=2,
        method="exact",
        metric="precomputed",
        init="random",
        perplexity=30.0,
        max_iter=1000,
        random_state=seed,
    ).fit_transform(d300)
    per_seed.append([float(trustworthiness(d300, Ys, n_neighbors=k, metric="precomputed")) for k in (5, 10)])
mean_trust = {str(k): float(np.mean([t[i] for t in per_seed])) for i, k in enumerate((5, 10))}

out = {
    "rdkit": rdkit.__version__,
    "scikit_learn": sklearn.__version__,
    "numpy": np.__version__,
    "joint_bits": {"molecules": 40, "perplexity": 10, "p": [round(v, 12) for v in joint_bits]},
    "joint_vectors": {"rows": 30, "perplexity": 8, "p": [round(v, 12) for v in joint_vectors]},
    "embedding": {
        "molecules": 300,
        "perplexity": 30,
        "coords": [[round(float(x), 6), round(float(y), 6)] for x, y in Y],
        "trustworthiness": trust,
        "mean_trustworthiness_seeds_0_4": mean_trust,
        "trustworthiness_per_seed": per_seed,
        "kl_divergence": float(tsne.kl_divergence_),
    },
}
(ROOT / "test/fixtures/tsne-reference.json").write_text(json.dumps(out, separators=(",", ":")) + "\n")
print("wrote test/fixtures/tsne-reference.json", trust, mean_trust)
