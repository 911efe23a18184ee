"""Recall benchmark, Python side (bench/synthons/recall.ts runs ours on the same files):

1. `subspace`: a ≥10^6-product sub-space of the AutoGrow4 × ZINC15 space: the given reactions,
   each slot sampled to --per-slot synthons with a fixed seed, written in RDKit's text format.
2. `exhaustive`: RDKit enumerates every product (SynthonSpace.WriteEnumeratedFile), each is
   parsed, fingerprinted (Morgan r2 2048) and scored against every query; the top --k per query
   (and every product tied with the k-th) and every product matching each SMARTS are kept: the
   ground truth (one process per reaction, --jobs at a time). Queries: --queries products of the
   space drawn with the seed (RDKit molzip of a random tuple), plus two
   molecules from outside the space (one of them dissimilar to everything in it).
3. `peer`: RDKit's SynthonSpaceSearch on the same file and queries, one thread: FingerprintSearch
   with similarityCutoff set to each query's exact k-th score (its most favourable setting for a
   top-k) and SubstructureSearch with maxHits -1 (all).

    .tools/chem3d/bin/python bench/synthons/recall_exhaustive.py subspace --out /tmp/sub.txt
    .tools/chem3d/bin/python bench/synthons/recall_exhaustive.py exhaustive --space /tmp/sub.txt --out truth.json
    .tools/chem3d/bin/python bench/synthons/recall_exhaustive.py peer --space /tmp/sub.txt --truth truth.json --out peer.json
"""
import argparse
import gzip
import heapq
import json
import os
import random
import tempfile
import time
from collections import defaultdict
from multiprocessing import Pool

import rdkit
from rdkit import Chem, DataStructs, RDLogger
from rdkit.Chem import rdFingerprintGenerator
from rdkit.Chem import rdSynthonSpaceSearch as sss

RDLogger.DisableLog('rdApp.*')
GEN = rdFingerprintGenerator.GetMorganGenerator(radius=2, fpSize=2048)
SOURCE = 'catalogs/spaces/sources/zinc15_autogrow4_space.txt.gz'
# Four acyclic joins (amide, reductive amination, Suzuki, Buchwald-Hartwig): the chemistry that
# dominates the full space. No ring-forming reaction: its exhaustive enumeration did not fit the
# session on the loaded VM (bench/synthons/README.md).
REACTIONS = ['13_Carboxylate_and_Amine', '66_reductive_amination', '67_Suzuki', '87_Buchwald_Hartwig']
# From outside the space: celecoxib (drug-like) and a perfluorinated acid (dissimilar to it all).
EXTERNAL = ['Cc1ccc(-c2cc(C(F)(F)F)nn2-c2ccc(S(N)(=O)=O)cc2)cc1', 'OC(=O)C(F)(F)C(F)(F)C(F)(F)F']
SMARTS = ['c1ccc2ncccc2c1', 'S(=O)(=O)N', '[#6]C#N']


def subspace(args):
    reactions = args.reactions.split(',') if args.reactions else REACTIONS
    rows = defaultdict(list)
    with gzip.open(args.source, 'rt') as f:
        header = f.readline()
        for line in f:
            smi, sid, slot, rxn = line.rstrip('\n').split('\t')[:4]
            if rxn in reactions:
                rows[(rxn, slot)].append(line)
    rng = random.Random(args.seed)
    products = 0
    with open(args.out, 'w') as out:
        out.write(header)
        for rxn in reactions:
            n = 1
            for slot in sorted(s for r, s in rows if r == rxn):
                lines = sorted(rows[(rxn, slot)])
                pick = rng.sample(lines, min(args.per_slot, len(lines)))
                out.writelines(sorted(pick))
                n *= len(pick)
            products += n
    print(f'{args.out}: {len(reactions)} reactions, {products} products (before invalid assemblies)')


def _reaction_files(space_file, tmp):
    """The space file split per reaction and half of slot 0 (one RDKit enumeration per worker)."""
    by = defaultdict(list)
    with open(space_file) as f:
        header = f.readline()
        for line in f:
            by[line.rstrip('\n').split('\t')[3]].append(line)
    paths = []
    for rxn, lines in sorted(by.items()):
        # Two files per reaction, each with half of slot 0's synthons: more processes, same products.
        first = [l for l in lines if l.split('\t')[2] == '0']
        rest = [l for l in lines if l.split('\t')[2] != '0']
        for half in (0, 1):
            path = os.path.join(tmp, f'{rxn}.{half}.txt')
            with open(path, 'w') as out:
                out.write(header)
                out.writelines(first[half::2] + rest)
            paths.append(path)
    return paths


def _draw_queries(space_file, n, seed):
    """n products of the space: a random reaction, a random synthon per slot, zipped by RDKit."""
    slots = defaultdict(lambda: defaultdict(list))
    with open(space_file) as f:
        f.readline()
        for line in f:
            smi, _sid, slot, rxn = line.rstrip('\n').split('\t')[:4]
            slots[rxn][int(slot)].append(smi)
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        rxn = rng.choice(sorted(slots))
        parts = [rng.choice(slots[rxn][s]) for s in sorted(slots[rxn])]
        # [n*] connectors → atom maps, the form molzip joins.
        frags = Chem.MolFromSmiles('.'.join(parts))
        for a in frags.GetAtoms():
            if a.GetAtomicNum() == 0 and a.GetIsotope():
                a.SetAtomMapNum(a.GetIsotope())
                a.SetIsotope(0)
        mol = Chem.molzip(frags)
        smi = Chem.MolToSmiles(mol)
        if Chem.MolFromSmiles(smi) is not None and '*' not in smi and smi not in out:
            out.append(smi)
    return out


def _score(task):
    """One reaction: RDKit enumerates it; every product is parsed, fingerprinted and scored."""
    path, queries, k = task
    space = sss.SynthonSpace()
    space.ReadTextFile(path)
    qfps = [GEN.GetFingerprint(Chem.MolFromSmiles(s)) for s in queries]
    pats = [Chem.MolFromSmarts(s) for s in SMARTS]
    keep = k * 20
    heaps = [[] for _ in queries]
    subs = [[] for _ in SMARTS]
    n = invalid = 0
    t = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        enum = os.path.join(tmp, 'enum.smi')
        space.WriteEnumeratedFile(enum)
        enum_s = time.perf_counter() - t
        with open(enum) as fh:
            for line in fh:
                # WriteEnumeratedFile writes RDKit canonical SMILES.
                smi = line.split()[0]
                mol = Chem.MolFromSmiles(smi)
                if mol is None:
                    invalid += 1
                    continue
                n += 1
                fp = GEN.GetFingerprint(mol)
                for i, s in enumerate(DataStructs.BulkTanimotoSimilarity(fp, qfps)):
                    h = heaps[i]
                    if len(h) < keep:
                        heapq.heappush(h, (s, smi))
                    elif s > h[0][0]:
                        heapq.heapreplace(h, (s, smi))
                for j, p in enumerate(pats):
                    if mol.HasSubstructMatch(p):
                        subs[j].append(smi)
    print(f'{os.path.basename(path)}: {n} products, {invalid} invalid, enumerate {enum_s:.0f} s, '
          f'total {time.perf_counter() - t:.0f} s', flush=True)
    return n, invalid, enum_s, time.perf_counter() - t, heaps, subs


def exhaustive(args):
    queries = _draw_queries(args.space, args.queries, args.seed) + EXTERNAL
    t = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        tasks = [(p, queries, args.k) for p in _reaction_files(args.space, tmp)]
        with Pool(args.jobs) as pool:
            parts = pool.map(_score, tasks, chunksize=1)
    wall = time.perf_counter() - t
    n = sum(p[0] for p in parts)
    invalid = sum(p[1] for p in parts)
    sim = []
    for i, q in enumerate(queries):
        best = sorted({r for p in parts for r in p[4][i]}, key=lambda r: (-r[0], r[1]))
        kth = best[args.k - 1][0]
        sim.append({'query': q, 'kth': round(kth, 6), 'top': [[smi, round(s, 6)] for s, smi in best if s >= kth]})
    subs = [sorted({smi for p in parts for smi in p[5][j]}) for j in range(len(SMARTS))]
    out = {'rdkit_version': rdkit.__version__, 'space': args.space, 'products': n, 'invalid': invalid,
           'wall_s': wall, 'cpu_s': sum(p[3] for p in parts), 'jobs': args.jobs, 'k': args.k,
           'similarity': sim,
           'substructure': [{'smarts': s, 'hits': h} for s, h in zip(SMARTS, subs)]}
    json.dump(out, open(args.out, 'w'))
    print(f'{n} products ({invalid} invalid), {wall:.0f} s wall with {args.jobs} processes')


def peer(args):
    truth = json.load(open(args.truth))
    space = sss.SynthonSpace()
    t = time.perf_counter()
    space.ReadTextFile(args.space)
    space.BuildSynthonFingerprints(GEN)
    prep_s = time.perf_counter() - t
    out = {'rdkit_version': rdkit.__version__, 'prepare_s': prep_s, 'similarity': [], 'substructure': []}
    for e in truth['similarity']:
        params = sss.SynthonSpaceSearchParams()
        params.similarityCutoff = e['kth']
        params.maxHits = -1
        params.numThreads = 1
        params.timeOut = args.timeout
        qfp = GEN.GetFingerprint(Chem.MolFromSmiles(e['query']))
        t = time.perf_counter()
        res = space.FingerprintSearch(Chem.MolFromSmiles(e['query']), GEN, params=params)
        dt = time.perf_counter() - t
        hits = [(DataStructs.TanimotoSimilarity(qfp, GEN.GetFingerprint(m)), Chem.MolToSmiles(m))
                for m in res.GetHitMolecules()]
        hits.sort(key=lambda r: (-r[0], r[1]))
        out['similarity'].append({'query': e['query'], 'seconds': dt, 'timed_out': res.GetTimedOut(),
                                  'top': [[smi, round(s, 6)] for s, smi in hits[:truth['k']]]})
        print(f"similarity {e['query']}: {dt:.2f} s, {len(hits)} hits", flush=True)
    for e in truth['substructure']:
        params = sss.SynthonSpaceSearchParams()
        params.maxHits = -1
        params.numThreads = 1
        params.timeOut = args.timeout
        t = time.perf_counter()
        res = space.SubstructureSearch(Chem.MolFromSmarts(e['smarts']), params=params)
        dt = time.perf_counter() - t
        hits = sorted({Chem.MolToSmiles(m) for m in res.GetHitMolecules()})
        out['substructure'].append({'smarts': e['smarts'], 'seconds': dt, 'timed_out': res.GetTimedOut(),
                                    'hits': hits})
        print(f"substructure {e['smarts']}: {dt:.2f} s, {len(hits)} hits", flush=True)
    json.dump(out, open(args.out, 'w'))


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest='cmd', required=True)
    a = sub.add_parser('subspace')
    a.add_argument('--source', default=SOURCE)
    a.add_argument('--out', required=True)
    a.add_argument('--per-slot', type=int, default=510)
    a.add_argument('--seed', type=int, default=7)
    # Comma-separated reaction ids instead of the four acyclic ones (the weak-bound sub-space).
    a.add_argument('--reactions')
    b = sub.add_parser('exhaustive')
    b.add_argument('--space', required=True)
    b.add_argument('--out', required=True)
    b.add_argument('--queries', type=int, default=10)
    b.add_argument('--k', type=int, default=100)
    b.add_argument('--seed', type=int, default=11)
    b.add_argument('--jobs', type=int, default=4)
    c = sub.add_parser('peer')
    c.add_argument('--space', required=True)
    c.add_argument('--truth', required=True)
    c.add_argument('--out', required=True)
    c.add_argument('--timeout', type=int, default=600)
    args = ap.parse_args()
    {'subspace': subspace, 'exhaustive': exhaustive, 'peer': peer}[args.cmd](args)


if __name__ == '__main__':
    main()
