"""The benchmark peer: RDKit's SynthonSpaceSearch (Python, PyPI rdkit, same version as @rdkit/rdkit)
on the same space file and the same queries as ours (bench/synthons/run.ts writes the queries).

    .tools/pysyn/bin/python bench/synthons/peer.py --space FILE --queries Q.json --out R.json
        [--cutoff 0.5] [--brute-force]

Per query: FingerprintSearch (Morgan r2 2048, similarityCutoff, maxHits -1 = all, RDKit's default
fragment/approximate-similarity adjusters) and SubstructureSearch, each timed alone on one thread
(SubstructureSearch also with writing its hits' SMILES, which ours returns).
With --brute-force it also enumerates the whole space (WriteEnumeratedFile) and scores every
product against every query: the ground truth for recall.
"""
import argparse
import json
import os
import tempfile
import time

import rdkit
from rdkit import Chem, DataStructs
from rdkit.Chem import rdFingerprintGenerator
from rdkit.Chem import rdSynthonSpaceSearch as sss

GEN = rdFingerprintGenerator.GetMorganGenerator(radius=2, fpSize=2048)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--space', required=True)
    ap.add_argument('--queries', required=True)
    ap.add_argument('--out', required=True)
    ap.add_argument('--cutoff', type=float, default=0.5)
    ap.add_argument('--brute-force', action='store_true')
    ap.add_argument('--max-hits', type=int, default=-1, help='-1 = all (a 10^9 space needs a bound)')
    args = ap.parse_args()
    q = json.load(open(args.queries))
    space = sss.SynthonSpace()
    t = time.perf_counter()
    space.ReadTextFile(args.space)
    read_s = time.perf_counter() - t
    print(f'read {read_s:.1f} s, {space.GetNumProducts()} products', flush=True)
    t = time.perf_counter()
    # Substructure-only runs (no similarity queries, no brute force) need no synthon fingerprints.
    if q['similarity'] or args.brute_force:
        space.BuildSynthonFingerprints(GEN)
    fp_s = time.perf_counter() - t
    # Written now too: on a large space the stages above are a result of their own.
    json.dump({'rdkit_version': rdkit.__version__, 'read_s': read_s, 'synthon_fps_s': fp_s}, open(args.out, 'w'))
    out = {'rdkit_version': rdkit.__version__, 'read_s': read_s, 'synthon_fps_s': fp_s,
           'products': space.GetNumProducts(), 'similarity': [], 'substructure': []}
    for smi in q['similarity']:
        params = sss.SynthonSpaceSearchParams()
        params.similarityCutoff = args.cutoff
        params.maxHits = args.max_hits
        params.numThreads = 1
        mol = Chem.MolFromSmiles(smi)
        t = time.perf_counter()
        res = space.FingerprintSearch(mol, GEN, params=params)
        dt = time.perf_counter() - t
        hits = sorted({Chem.MolToSmiles(m) for m in res.GetHitMolecules()})
        out['similarity'].append({'query': smi, 'seconds': dt, 'hits': hits})
    for smarts in q['substructure']:
        params = sss.SynthonSpaceSearchParams()
        params.maxHits = args.max_hits
        params.numThreads = 1
        t = time.perf_counter()
        res = space.SubstructureSearch(Chem.MolFromSmarts(smarts), params=params)
        dt = time.perf_counter() - t
        smiles = [Chem.MolToSmiles(m) for m in res.GetHitMolecules()]
        # Ours returns every hit's canonical SMILES, so that is timed too, apart.
        dt_smiles = time.perf_counter() - t
        out['substructure'].append({'query': smarts, 'seconds': dt, 'seconds_with_smiles': dt_smiles,
                                    'hits': sorted(set(smiles))})
    if args.brute_force:
        qfps = [GEN.GetFingerprint(Chem.MolFromSmiles(s)) for s in q['similarity']]
        above = [[] for _ in qfps]
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, 'enum.smi')
            t = time.perf_counter()
            space.WriteEnumeratedFile(path)
            n = 0
            with open(path) as fh:
                for line in fh:
                    mol = Chem.MolFromSmiles(line.split()[0])
                    if mol is None:
                        continue
                    n += 1
                    fp = GEN.GetFingerprint(mol)
                    sims = DataStructs.BulkTanimotoSimilarity(fp, qfps)
                    for i, s in enumerate(sims):
                        if s >= args.cutoff:
                            above[i].append(Chem.MolToSmiles(mol))
            out['brute_force'] = {'products': n, 'seconds': time.perf_counter() - t,
                                  'above_cutoff': [sorted(set(a)) for a in above]}
    json.dump(out, open(args.out, 'w'), indent=1)


if __name__ == '__main__':
    main()
