"""Reference values for the v2 selection/substructure tests, computed with Python RDKit.

Run: .tools/pyoff/bin/python scripts/reference/v2_selection_reference.py > test/fixtures/v2/selection-reference.json
"""
import json
from rdkit import Chem, DataStructs
from rdkit.Chem import rdFingerprintGenerator, Descriptors, Lipinski, Crippen, rdMolDescriptors
from rdkit.Chem.Scaffolds import MurckoScaffold

mols = []
for line in open("test/fixtures/v2/chembl-drugs.smi"):
    parts = line.split()
    if len(parts) < 2:
        continue
    m = Chem.MolFromSmiles(parts[0])
    if m is None or m.GetNumHeavyAtoms() == 0:
        continue
    mols.append((parts[1], m))

gen = rdFingerprintGenerator.GetMorganGenerator(radius=2, fpSize=2048)
fps = [gen.GetFingerprint(m) for _, m in mols]
queries = {"aspirin": "CC(=O)Oc1ccccc1C(=O)O", "caffeine": "Cn1c(=O)c2c(ncn2C)n(C)c1=O"}
out = {"rdkit": Chem.rdBase.rdkitVersion, "molecules": len(mols), "knn": {}, "substructure": {}, "lipinski_knn": {}}
for name, smi in queries.items():
    q = gen.GetFingerprint(Chem.MolFromSmiles(smi))
    sims = DataStructs.BulkTanimotoSimilarity(q, fps)
    order = sorted(range(len(mols)), key=lambda i: (-sims[i], i))[:10]
    out["knn"][name] = [{"id": mols[i][0], "score": sims[i]} for i in order]
    ok = [i for i in range(len(mols)) if Descriptors.MolWt(mols[i][1]) <= 500 and Crippen.MolLogP(mols[i][1]) <= 5
          and rdMolDescriptors.CalcNumHBD(mols[i][1]) <= 5 and rdMolDescriptors.CalcNumHBA(mols[i][1]) <= 10]
    order = sorted(ok, key=lambda i: (-sims[i], i))[:10]
    out["lipinski_knn"][name] = [{"id": mols[i][0], "score": sims[i]} for i in order]
for smarts in ["c1ccccc1C(=O)[OX2H1]", "[#7]S(=O)(=O)c1ccccc1", "C(F)(F)F", "[nH]1cccc1"]:
    p = Chem.MolFromSmarts(smarts)
    # Atom indices refer to the canonical SMILES the service returns, so match on the re-parsed canonical form.
    canon = [(mid, Chem.MolFromSmiles(Chem.MolToSmiles(m))) for mid, m in mols]
    hits = [(mid, m.GetSubstructMatch(p)) for mid, m in canon if m.HasSubstructMatch(p)]
    out["substructure"][smarts] = {"count": len(hits), "first": [{"id": h[0], "atoms": list(h[1])} for h in hits[:5]]}
print(json.dumps(out, indent=1))
