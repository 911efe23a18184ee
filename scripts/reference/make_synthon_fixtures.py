"""Builds test/fixtures/synthons/similarity-reference.json: brute-force Morgan similarity over the
full enumerations of the bundled RDKit test spaces (the ground truth an exact synthon-space search
must reproduce), plus what RDKit's own SynthonSpaceSearch returns for the same queries.

Run with the offline venv (RDKit 2026.9.1, the same version as @rdkit/rdkit):
    python3 -m venv .tools/pysyn && .tools/pysyn/bin/pip install -r bench/synthons/requirements.txt
    .tools/pysyn/bin/python scripts/reference/make_synthon_fixtures.py

Queries are deterministic (fixed seed): products of each space with one atom mutated, so the hit
sets hold neighbours rather than only the query itself, plus a few drugs.
"""
import gzip
import json
import random
from pathlib import Path

import rdkit
from rdkit import Chem, DataStructs
from rdkit.Chem import rdFingerprintGenerator
from rdkit.Chem import rdSynthonSpaceSearch as sss

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ROOT / 'catalogs' / 'spaces' / 'sources'
FIXTURES = ROOT / 'test' / 'fixtures' / 'synthons'
GEN = rdFingerprintGenerator.GetMorganGenerator(radius=2, fpSize=2048)
CUTOFF = 0.45
TOP = 100
SPACES = {
    'idorsia_toy_space_a': 'idorsia_toy_space_enum.smi.gz',
    'urea_space': 'urea_space_enum.smi',
    'triazole_space': 'triazole_space_enum.smi',
    'doebner_miller_space': 'doebner_miller_space_enum.smi',
}
DRUGS = ['CC(=O)Nc1ccc(O)cc1', 'O=C(NCc1ccco1)c1ccc(Cl)cc1Cl', 'Cc1ccc(C(=O)NC2CCN(C)CC2)cc1']


def read_enum(name):
    path = FIXTURES / name
    text = gzip.open(path, 'rt').read() if name.endswith('.gz') else path.read_text()
    out = []
    for line in text.splitlines():
        if line.strip():
            mol = Chem.MolFromSmiles(line.split()[0])
            out.append((Chem.MolToSmiles(mol), GEN.GetFingerprint(mol)))
    return out


def mutate(smiles, rng):
    """Swap one halogen/heteroatom or drop a terminal atom, keeping a valid molecule."""
    mol = Chem.RWMol(Chem.MolFromSmiles(smiles))
    for _ in range(20):
        atom = mol.GetAtomWithIdx(rng.randrange(mol.GetNumAtoms()))
        if atom.GetIsAromatic():
            continue
        trial = Chem.RWMol(mol)
        a = trial.GetAtomWithIdx(atom.GetIdx())
        if a.GetDegree() == 1:
            trial.RemoveAtom(a.GetIdx())
        else:
            a.SetAtomicNum({6: 7, 7: 6, 8: 7}.get(a.GetAtomicNum(), 6))
        try:
            Chem.SanitizeMol(trial)
            return Chem.MolToSmiles(trial)
        except Exception:
            continue
    return smiles


def main():
    rng = random.Random(20261123)
    fixture = {'rdkit_version': rdkit.__version__, 'cutoff': CUTOFF, 'top': TOP, 'spaces': {}}
    for space, enum_file in SPACES.items():
        products = read_enum(enum_file)
        picks = rng.sample(range(len(products)), min(8 if len(products) > 100 else 2, len(products)))
        queries = [mutate(products[i][0], rng) for i in picks] + [products[picks[0]][0]] + DRUGS[:2]
        synthon_space = sss.SynthonSpace()
        synthon_space.ReadTextFile(str(SOURCES / f'{space}.txt'))
        synthon_space.BuildSynthonFingerprints(GEN)
        entries = []
        for q in queries:
            qfp = GEN.GetFingerprint(Chem.MolFromSmiles(q))
            sims = DataStructs.BulkTanimotoSimilarity(qfp, [fp for _, fp in products])
            order = sorted(range(len(products)), key=lambda i: (-sims[i], products[i][0]))
            above = [[products[i][0], round(sims[i], 6)] for i in order if sims[i] >= CUTOFF]
            top = [[products[i][0], round(sims[i], 6)] for i in order[:TOP]]
            params = sss.SynthonSpaceSearchParams()
            params.similarityCutoff = CUTOFF
            params.maxHits = -1
            res = synthon_space.FingerprintSearch(Chem.MolFromSmiles(q), GEN, params=params)
            rdkit_hits = sorted({Chem.MolToSmiles(m) for m in res.GetHitMolecules()})
            entries.append({'query': q, 'above_cutoff': above, 'top': top, 'rdkit_sss_hits': rdkit_hits})
            print(space, q, len(above), 'RDKit SSS found', len(set(rdkit_hits) & {s for s, _ in above}), flush=True)
        fixture['spaces'][space] = entries
    out = FIXTURES / 'similarity-reference.json'
    out.write_text(json.dumps(fixture, indent=1) + '\n')
    print('wrote', out)


if __name__ == '__main__':
    main()
