"""RDKit SynthonSpaceSearch's substructure search time on a space too large for it to load at once.

RDKit holds ~46 KB per synthon (3.0 GB for the 65k synthons of a 2x10^8 sub-space), so the 643,625
synthons of the 10^9 default space would need ~30 GB. Its search screens every reaction of the
space independently, then builds hits from the screened synthon combinations. So this script
splits the space's reactions into groups of at most --max-synthons synthons, loads one group at a
time, and times each query's screen there with `buildHits = False` (RDKit finds every matching
synthon combination and counts the products, but builds none). The sum over the groups, less the
per-call cost counted once too often per group (the query's fragmentation, measured on a tiny
space), is a LOWER BOUND of RDKit's time on the whole space: the whole-space search does all of
this screening and then builds its hits on top.

usage (venv .tools/shapebench or .tools/pysyn, rdkit pinned as in requirements.txt):
  python bench/synthons/peer_groups.py --space catalogs/spaces/sources/zinc15_autogrow4_space.txt.gz \
    --queries q.json --out peer-groups.json [--max-synthons 110000] [--tiny catalogs/spaces/sources/amide_space.txt]
q.json: {"substructure": ["c1ccncc1", ...]}

Morgan similarity (--similarity): q.json {"similarity": [[smiles, cutoff], ...]} (cutoff: the
query's 100th score from ours, RDKit's most favourable setting for a top 100). Per group RDKit
builds its synthon fingerprints (timed apart, a set-up cost) and runs FingerprintSearch (Morgan
r2 2048, default adjusters, maxHits 100, one thread) screen-only; the sum over the groups is
again a lower bound. --groups 0,2,4 measures only those groups (two processes side by side; the
script merges nothing: sum the files' groups).
"""
import argparse
import gzip
import json
import os
import re
import resource
import tempfile
import time

import rdkit
from rdkit import Chem
from rdkit.Chem import rdSynthonSpaceSearch as sss


def read_rows(path):
    opener = gzip.open if path.endswith('.gz') else open
    with opener(path, 'rt') as f:
        header = f.readline()
        rows = [line for line in f if line.strip()]
    return header, rows


def groups_of(rows, max_synthons):
    """Whole reactions, largest first, packed into groups of at most max_synthons synthon rows."""
    by_reaction = {}
    for line in rows:
        by_reaction.setdefault(line.rstrip('\n').split('\t')[3], []).append(line)
    groups = []
    for rid, lines in sorted(by_reaction.items(), key=lambda kv: -len(kv[1])):
        for g in groups:
            if g['n'] + len(lines) <= max_synthons:
                g['reactions'].append(rid)
                g['lines'] += lines
                g['n'] += len(lines)
                break
        else:
            groups.append({'reactions': [rid], 'lines': list(lines), 'n': len(lines)})
    return groups


def read_group(header, g):
    """Reads a group's reactions into a SynthonSpace; a reaction RDKit cannot read (it stops the
    whole read with an error naming the reaction) is left out and the read retried without it."""
    unreadable = []
    while True:
        lines = [ln for ln in g['lines'] if ln.rstrip('\n').split('\t')[3] not in unreadable]
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, 'group.txt')
            with open(path, 'w') as f:
                f.write(header)
                f.writelines(lines)
            space = sss.SynthonSpace()
            t = time.perf_counter()
            try:
                space.ReadTextFile(path)
                return space, time.perf_counter() - t, unreadable
            except RuntimeError as e:
                m = re.search(r'in reaction (\S+) ::', str(e))
                if not m or m.group(1) in unreadable:
                    raise
                print(f'RDKit cannot read reaction {m.group(1)}: {str(e).splitlines()[0][:200]}', flush=True)
                unreadable.append(m.group(1))


def screen(space, smarts, build=False):
    params = sss.SynthonSpaceSearchParams()
    params.maxHits = 100
    params.numThreads = 1
    params.buildHits = build
    params.timeOut = 3600
    q = Chem.MolFromSmarts(smarts)
    t, c = time.perf_counter(), time.process_time()
    res = space.SubstructureSearch(q, params=params)
    return time.perf_counter() - t, time.process_time() - c, res.GetMaxNumResults()


GEN = None


def fp_screen(space, smiles, cutoff, build=False):
    params = sss.SynthonSpaceSearchParams()
    params.maxHits = 100
    params.numThreads = 1
    params.buildHits = build
    params.timeOut = 3600
    params.similarityCutoff = cutoff
    q = Chem.MolFromSmiles(smiles)
    t, c = time.perf_counter(), time.process_time()
    res = space.FingerprintSearch(q, GEN, params=params)
    return time.perf_counter() - t, time.process_time() - c, res.GetMaxNumResults()


def similarity_main(args):
    global GEN
    from rdkit.Chem import rdFingerprintGenerator
    GEN = rdFingerprintGenerator.GetMorganGenerator(radius=2, fpSize=2048)
    queries = json.load(open(args.queries))['similarity']
    header, rows = read_rows(args.space)
    groups = groups_of(rows, args.max_synthons)
    pick = [int(x) for x in args.groups.split(',')] if args.groups else range(len(groups))
    print(f'{len(rows)} synthons, {len(groups)} groups, measuring {list(pick)}', flush=True)
    out = {'rdkit_version': rdkit.__version__, 'space': args.space, 'synthons': len(rows),
           'max_synthons': args.max_synthons, 'groups': [], 'unreadable_reactions': []}
    for gi in pick:
        g = groups[gi]
        space, read_s, unreadable = read_group(header, g)
        out['unreadable_reactions'] += unreadable
        t, c = time.perf_counter(), time.process_time()
        space.BuildSynthonFingerprints(GEN)
        fp_s, fp_cpu = time.perf_counter() - t, time.process_time() - c
        row = {'index': gi, 'reactions': [r for r in g['reactions'] if r not in unreadable],
               'unreadable': unreadable, 'synthons': g['n'], 'products': space.GetNumProducts(),
               'read_s': read_s, 'fingerprints_s': fp_s, 'fingerprints_cpu_s': fp_cpu, 'queries': {}}
        for smiles, cutoff in queries:
            dt, cpu, n = fp_screen(space, smiles, cutoff)
            row['queries'][smiles] = {'cutoff': cutoff, 'seconds': dt, 'cpu_s': cpu, 'screened_products': n}
        row['peak_rss_gb'] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6
        out['groups'].append(row)
        del space
        print(f'group {gi + 1}/{len(groups)}: {g["n"]} synthons, read {read_s:.0f} s, fingerprints '
              f'{fp_cpu:.0f} s CPU, ' + ', '.join(f'{q[:20]} {row["queries"][q]["cpu_s"]:.2f} s'
                                               for q, _ in queries), flush=True)
        json.dump(out, open(args.out, 'w'), indent=1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--space', required=True)
    ap.add_argument('--queries', required=True)
    ap.add_argument('--out', required=True)
    ap.add_argument('--max-synthons', type=int, default=110000)
    ap.add_argument('--tiny', default='catalogs/spaces/sources/amide_space.txt')
    ap.add_argument('--similarity', action='store_true')
    ap.add_argument('--groups')
    args = ap.parse_args()
    if args.similarity:
        return similarity_main(args)
    queries = json.load(open(args.queries))['substructure']
    header, rows = read_rows(args.space)
    groups = groups_of(rows, args.max_synthons)
    print(f'{len(rows)} synthons, {len(groups)} groups', flush=True)
    tiny = sss.SynthonSpace()
    tiny.ReadTextFile(args.tiny)
    overhead = {q: min(screen(tiny, q)[1] for _ in range(3)) for q in queries}
    out = {'rdkit_version': rdkit.__version__, 'space': args.space, 'synthons': len(rows),
           'max_synthons': args.max_synthons, 'overhead_s': overhead, 'groups': [],
           'unreadable_reactions': []}
    done = {}
    if os.path.exists(args.out):  # resume: groups already measured (same reactions) are kept
        done = {tuple(g['planned']): g for g in json.load(open(args.out)).get('groups', [])}
    for gi, g in enumerate(groups):
        if tuple(g['reactions']) in done:
            out['groups'].append(done[tuple(g['reactions'])])
            out['unreadable_reactions'] += done[tuple(g['reactions'])].get('unreadable', [])
            continue
        space, read_s, unreadable = read_group(header, g)
        out['unreadable_reactions'] += unreadable
        row = {'planned': g['reactions'], 'reactions': [r for r in g['reactions'] if r not in unreadable],
               'unreadable': unreadable, 'synthons': g['n'], 'products': space.GetNumProducts(),
               'read_s': read_s, 'queries': {}}
        for q in queries:
            dt, cpu, n = screen(space, q)
            # The same query as a user runs it (first 100 hits built), for the build cost apart.
            _, full_cpu, _ = screen(space, q, build=True)
            row['queries'][q] = {'seconds': dt, 'cpu_s': cpu, 'products_matching': n,
                                 'first_100_hits_cpu_s': full_cpu}
        row['peak_rss_gb'] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6
        out['groups'].append(row)
        del space
        print(f'group {gi + 1}/{len(groups)}: {g["n"]} synthons, read {read_s:.0f} s, '
              + ', '.join(f'{q} {row["queries"][q]["cpu_s"]:.2f} s CPU' for q in queries), flush=True)
        json.dump(out, open(args.out, 'w'), indent=1)
    out['whole_space'] = {
        q: {'lower_bound_cpu_s': max(sum(g['queries'][q]['cpu_s'] for g in out['groups'])
                                     - (len(out['groups']) - 1) * overhead[q],
                                     max(g['queries'][q]['cpu_s'] for g in out['groups'])),
            'products_matching': sum(g['queries'][q]['products_matching'] for g in out['groups'])}
        for q in queries}
    out['products'] = sum(g['products'] for g in out['groups'])
    json.dump(out, open(args.out, 'w'), indent=1)
    for q, v in out['whole_space'].items():
        print(f'{q}: RDKit >= {v["lower_bound_cpu_s"]:.2f} CPU-s on the whole space '
              f'({v["products_matching"]} products match)', flush=True)


if __name__ == '__main__':
    main()
