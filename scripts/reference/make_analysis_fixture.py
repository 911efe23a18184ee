"""Generates test/fixtures/analysis-reference.json: reference values for engine/analysis.

Computed with the field's reference tools, pinned in scripts/reference/requirements-analysis.txt
(Python RDKit 2026.09.1 = the @rdkit/rdkit version, scikit-learn 1.9.1, numpy 2.4.6):

- similarity: RDKit DataStructs.BulkTanimotoSimilarity (float64) of the first 25 molecules of set A
  against all of set A (Morgan radius 2, 2048 bits, rdFingerprintGenerator defaults);
- morgan_counts: GetCountFingerprintAsNumPy of the same generator, for set A plus edge cases
  (isotopes, charges, salts, hydrogens kept as atoms, dative bonds), as {bit: count};
- butina: rdkit.ML.Cluster.Butina.ClusterData(dists, n, t, isDistData=True) on
  dists = 1 - BulkTanimotoSimilarity(fp[i], fp[:i]) (the RDKit Cookbook recipe) for set B at
  three thresholds;
- pca: sklearn PCA(n_components=2, svd_solver="full") of set A's fingerprint bits (dense 0/1) and
  of a descriptor table of set A, with the sign rule of engine/analysis/map/pca.ts applied
  (each component's largest-magnitude loading positive, lowest index among |v| >= max*(1-1e-9));
- kmeans: sklearn KMeans(algorithm="lloyd", n_init=1, tol=0, init=given rows) on that table;
- histogram: numpy.histogram of a similarity row (10 bins on [0, 1], and explicit edges) and of
  the MolWt column (7 bins over its own range).

Set A: the first 150 parseable ChEMBL approved drugs of PatWalters/datafiles chembl_drugs.smi
(ChEMBL, CC BY-SA 3.0). Set B: the first 400 rows of the bundled ZINC15 sample
(catalogs/sources/zinc15_sample.tsv.gz; AutoGrow4, Apache-2.0; compounds from ZINC15).

Run:  python3 -m venv .tools/analysis && .tools/analysis/bin/pip install -r scripts/reference/requirements-analysis.txt
      .tools/analysis/bin/python scripts/reference/make_analysis_fixture.py [path/to/chembl_drugs.smi]
"""
import gzip
import json
import sys

import numpy as np
import rdkit
import sklearn
from rdkit import Chem, DataStructs, RDLogger
from rdkit.Chem import Descriptors, rdFingerprintGenerator
from rdkit.ML.Cluster import Butina
from sklearn.cluster import KMeans
from sklearn.decomposition import PCA

RDLogger.DisableLog("rdApp.*")
drugs = sys.argv[1] if len(sys.argv) > 1 else "../shared/data/catalog/patwalters_chembl_drugs.smi"
gen = rdFingerprintGenerator.GetMorganGenerator(radius=2, fpSize=2048)


def read_drugs(path, n):
    out = []
    with open(path) as fh:
        for line in fh:
            parts = line.split()
            if not parts:
                continue
            mol = Chem.MolFromSmiles(parts[0])
            if mol is None or mol.GetNumAtoms() == 0:
                continue
            out.append((parts[0], mol))
            if len(out) == n:
                break
    return out


def read_zinc(n):
    out = []
    with gzip.open("catalogs/sources/zinc15_sample.tsv.gz", "rt") as fh:
        next(fh)
        for line in fh:
            smi = line.split("\t")[0]
            mol = Chem.MolFromSmiles(smi)
            if mol is None or mol.GetNumAtoms() == 0:
                continue
            out.append((smi, mol))
            if len(out) == n:
                break
    return out


def orient(components):
    """The sign rule of engine/analysis/map/pca.ts, per row of components; returns the signs."""
    signs = []
    for v in components:
        m = np.max(np.abs(v))
        j = int(np.argmax(np.abs(v) >= m * (1 - 1e-9)))
        signs.append(1.0 if v[j] >= 0 else -1.0)
    return np.array(signs)


def pca_ref(x):
    p = PCA(n_components=2, svd_solver="full")
    coords = p.fit_transform(x)
    s = orient(p.components_)
    return {
        "coords": (coords * s).tolist(),
        "components": (p.components_ * s[:, None]).tolist(),
        "explained_variance": p.explained_variance_.tolist(),
        "explained_variance_ratio": p.explained_variance_ratio_.tolist(),
    }


set_a = read_drugs(drugs, 150)
fps_a = [gen.GetFingerprint(m) for _, m in set_a]
queries = 25
similarity = [list(DataStructs.BulkTanimotoSimilarity(fps_a[q], fps_a)) for q in range(queries)]

edge_cases = [
    "[2H]C([2H])([2H])O",
    "C[13CH2]O",
    "[14CH4]",
    "[O-]C(=O)CC[NH3+]",
    "[Na+].[Cl-]",
    "C1CC1.C",
    "[H][H]",
    "O",
    "C[N+](C)(C)C",
    "c1ccccc1-c1ccccc1",
    "[NH3]->[Pt](<-[NH3])(Cl)Cl",
    "CC(=O)Oc1ccccc1C(=O)O",
    "C/C=C/C",
    "N[C@@H](C)C(=O)O",
    "[2H]N([2H])c1ccccc1",
    "Fc1ccc(cc1)[S+]([O-])C",
]
count_smiles = [s for s, _ in set_a] + edge_cases
counts = []
for s in count_smiles:
    mol = Chem.MolFromSmiles(s)
    arr = gen.GetCountFingerprintAsNumPy(mol)
    counts.append({"smiles": s, "counts": {str(int(i)): int(arr[i]) for i in np.nonzero(arr)[0]}})

set_b = read_zinc(400)
fps_b = [gen.GetFingerprint(m) for _, m in set_b]
dists = []
for i in range(1, len(fps_b)):
    dists.extend([1 - x for x in DataStructs.BulkTanimotoSimilarity(fps_b[i], fps_b[:i])])
butina = [
    {"threshold": t, "clusters": [list(c) for c in Butina.ClusterData(dists, len(fps_b), t, isDistData=True)]}
    for t in (0.2, 0.4, 0.6)
]

bits = np.array([list(fp) for fp in fps_a], dtype=np.float64)
desc_names = ["MolWt", "MolLogP", "TPSA", "NumHDonors", "NumHAcceptors", "NumRotatableBonds"]
table = np.array([[getattr(Descriptors, d)(m) for d in desc_names] for _, m in set_a], dtype=np.float64)

init_rows = [0, 40, 80, 120]
km = KMeans(n_clusters=4, init=table[init_rows], n_init=1, algorithm="lloyd", tol=0, max_iter=300)
km.fit(table)

row = np.array(similarity[0])
edges = [0.0, 0.1, 0.25, 0.5, 1.0]
h10, e10 = np.histogram(row, bins=10, range=(0.0, 1.0))
he, _ = np.histogram(row, bins=edges)
hw, ew = np.histogram(table[:, 0], bins=7)

out = {
    "generated_by": "scripts/reference/make_analysis_fixture.py",
    "rdkit_version": rdkit.__version__,
    "sklearn_version": sklearn.__version__,
    "numpy_version": np.__version__,
    "fingerprint": {"kind": "morgan", "radius": 2, "nBits": 2048},
    "set_a": {
        "source": "PatWalters/datafiles chembl_drugs.smi (ChEMBL approved drugs, CC BY-SA 3.0), first 150 parseable",
        "smiles": [s for s, _ in set_a],
    },
    "set_b": {
        "source": "catalogs/sources/zinc15_sample.tsv.gz (AutoGrow4 ZINC15 sample, Apache-2.0), first 400 rows",
        "smiles": [s for s, _ in set_b],
    },
    "similarity": {"queries": queries, "values": similarity},
    "morgan_counts": counts,
    "butina": butina,
    "descriptor_table": {"columns": desc_names, "rows": table.tolist()},
    "pca_bits": pca_ref(bits),
    "pca_descriptors": pca_ref(table),
    "kmeans": {
        "k": 4,
        "init_rows": init_rows,
        "labels": km.labels_.tolist(),
        "centers": km.cluster_centers_.tolist(),
        "inertia": float(km.inertia_),
        "n_iter": int(km.n_iter_),
    },
    "histogram": {
        "similarity_row0_bins10": {"counts": h10.tolist(), "edges": e10.tolist()},
        "similarity_row0_edges": {"edges": edges, "counts": he.tolist()},
        "molwt_bins7": {"counts": hw.tolist(), "edges": ew.tolist()},
    },
}
with open("test/fixtures/analysis-reference.json", "w") as fh:
    json.dump(out, fh, separators=(",", ":"))
print(len(set_a), "drugs,", len(set_b), "ZINC rows,", len(counts), "count fingerprints")
