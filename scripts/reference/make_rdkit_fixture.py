"""Builds test/fixtures/rdkit-reference.json: RDKit (Python) reference values that the engine's
chemistry (RDKit MinimalLib in WASM) must reproduce exactly.

Run with the offline venv (RDKit 2026.9.1, the same version as @rdkit/rdkit):
    .tools/pyoff/bin/python scripts/reference/make_rdkit_fixture.py [--data ../shared/data/catalog]

The selection is deterministic (fixed seed), so rerunning gives the same file.
"""
import argparse
import gzip
import json
import random
from pathlib import Path

import rdkit
from rdkit import Chem, DataStructs
from rdkit.Chem import Crippen, Descriptors, rdFingerprintGenerator, rdMolDescriptors
from rdkit.Chem.Scaffolds import MurckoScaffold

ROOT = Path(__file__).resolve().parents[2]

# The spec's descriptor names, each with the RDKit function that defines it.
DESCRIPTORS = {
    'molecular_weight': Descriptors.MolWt,
    'formal_charge': Chem.GetFormalCharge,
    'clogp': Crippen.MolLogP,
    'heavy_atoms': lambda m: m.GetNumHeavyAtoms(),
    'h_bond_acceptors': rdMolDescriptors.CalcNumHBA,
    'h_bond_donor': rdMolDescriptors.CalcNumHBD,
    'rotatable_bonds': rdMolDescriptors.CalcNumRotatableBonds,
    'num_of_rings': rdMolDescriptors.CalcNumRings,
    'molar_refractivity': Crippen.MolMR,
    'number_of_atoms': rdMolDescriptors.CalcNumAtoms,
    'topological_surface_area_mapping': rdMolDescriptors.CalcTPSA,
}

# Hand-picked edge cases for the scaffold and descriptor code paths.
EDGE_CASES = [
    'c1cc[n+](C)cc1', 'Cn1cccc1', 'O=C1CCCCC1', 'C=C1CCCCC1', 'CC(=O)Oc1ccccc1C(=O)O',
    '[Na+].[Cl-]', 'C[C@H]1CC[C@@H](C)CC1', 'c1ccc2c(c1)[nH]c1ccccc12', 'c1ccccc1/C=C/c1ccccc1',
    'CCCCCC', 'OCC(O)CO', 'C[N+](C)(C)C', 'O=[N+]([O-])c1ccc(CCc2ccccc2)cc1', 'CC(C)(C)OC(=O)N1CCC[C@H]1C(=O)O',
    'C1CCCCCCCCCCC1', 'O=C1CC[C@@H]2CCCC[C@H]2N1C', 'CC1=CC(=O)C=CC1=O', 'NC(=O)c1ccc[n+](C2OC(CO)C(O)C2O)c1',
    'c1ccc(cc1)S(=O)(=O)c1ccccc1', 'C/C=N/OC1CCCCC1', 'CC(=O)N[C@@H](Cc1ccccc1)C(=O)N[C@@H](C)C(=O)O',
    'C1CC2(CCN1)CCOC2', 'c1ccc2ccccc2c1.Cl', 'CCOC(=O)C1=C(C)NC(C)=C(C(=O)OC)C1c1cccc([N+](=O)[O-])c1',
    'O=C([O-])c1ccccc1.[K+]', 'C[C@@H]1C[C@H]2[C@@H]3CCC4=CC(=O)C=C[C@]4(C)[C@@]3(F)[C@@H](O)C[C@]2(C)[C@@]1(O)C(=O)CO',
    '[2H]C([2H])([2H])c1ccccc1', 'B(O)(O)c1ccccc1', 'F[P-](F)(F)(F)(F)F.CCCC[n+]1ccn(C)c1', 'c1ccc2c(c1)OCO2',
]


def read_smiles(path, col, sep, header=True, limit=None):
    opener = gzip.open if str(path).endswith('.gz') else open
    out = []
    with opener(path, 'rt') as f:
        if header:
            names = f.readline().rstrip('\n').split(sep)
            col = names.index(col)
        for line in f:
            parts = line.rstrip('\n').split(sep)
            if len(parts) > col:
                out.append(parts[col])
    return out


def macro(m):
    return any(len(r) >= 12 for r in m.GetRingInfo().AtomRings())


def pick(data):
    rng = random.Random(20261121)
    merged = read_smiles(data / 'catalog_merged.tsv.gz', 'smiles', '\t')
    drugs = read_smiles(data / 'patwalters_chembl_drugs.smi', 0, ' ', header=False)
    picked = list(EDGE_CASES)
    picked += rng.sample(merged, 170)
    picked += rng.sample(drugs, 40)
    # Make sure the awkward classes are represented, whatever the random draw gave.
    pools = {
        'salt': lambda s, m: '.' in s,
        'charged': lambda s, m: Chem.GetFormalCharge(m) != 0 or '+' in s,
        'stereo': lambda s, m: '@' in s or '/' in s,
        'acyclic': lambda s, m: m.GetRingInfo().NumRings() == 0,
        'macrocycle': lambda s, m: macro(m),
    }
    want = {'salt': 15, 'charged': 15, 'stereo': 15, 'acyclic': 10, 'macrocycle': 10}
    got = {k: 0 for k in want}
    for s in rng.sample(merged, len(merged)) + drugs:
        if all(got[k] >= want[k] for k in want):
            break
        m = Chem.MolFromSmiles(s)
        if m is None:
            continue
        for k, test in pools.items():
            if got[k] < want[k] and test(s, m):
                picked.append(s)
                got[k] += 1
                break
    seen, out = set(), []
    for s in picked:
        if s not in seen and len(s) <= 1000:
            seen.add(s)
            out.append(s)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--data', default=str(ROOT.parent / 'shared' / 'data' / 'catalog'))
    ap.add_argument('--out', default=str(ROOT / 'test' / 'fixtures' / 'rdkit-reference.json'))
    args = ap.parse_args()
    gen = rdFingerprintGenerator.GetMorganGenerator(radius=2, fpSize=2048)
    molecules, fps = [], []
    for smi in pick(Path(args.data)):
        m = Chem.MolFromSmiles(smi)
        if m is None or m.GetNumHeavyAtoms() == 0:
            continue
        fp = gen.GetFingerprint(m)
        fps.append(fp)
        molecules.append({
            'input': smi,
            'canonical': Chem.MolToSmiles(m),
            'on_bits': list(fp.GetOnBits()),
            'popcount': fp.GetNumOnBits(),
            'descriptors': {k: float(f(m)) for k, f in DESCRIPTORS.items()},
            'scaffold': Chem.MolToSmiles(MurckoScaffold.GetScaffoldForMol(m)),
        })
    rng = random.Random(7)
    pairs = []
    n = len(molecules)
    for _ in range(150):
        i, j = rng.randrange(n), rng.randrange(n)
        pairs.append([i, j, DataStructs.TanimotoSimilarity(fps[i], fps[j])])
    # Nearest neighbours too, so the pairs are not all near zero.
    for i in rng.sample(range(n), 50):
        sims = DataStructs.BulkTanimotoSimilarity(fps[i], fps)
        sims[i] = -1
        j = max(range(n), key=lambda k: sims[k])
        pairs.append([i, j, sims[j]])
    doc = {
        'rdkit_version': rdkit.__version__,
        'fingerprint': {'kind': 'morgan', 'radius': 2, 'nBits': 2048},
        'invalid': ['', 'C1CC', 'not a smiles', 'c1ccccc', '[H][H]', 'C' * 1001],
        'molecules': molecules,
        'tanimoto_pairs': pairs,
    }
    Path(args.out).write_text(json.dumps(doc, indent=0) + '\n')
    print(f'wrote {len(molecules)} molecules, {len(pairs)} pairs to {args.out}')


if __name__ == '__main__':
    main()
