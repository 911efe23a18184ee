"""Full DUD-E protocol for bench/shape/dude-full.ts: every active and every decoy of each target of
the shared data, embedded like the catalog (chem3d/embed.py through dude_prep.record: largest
fragment, hydrogens, ETKDGv3 seed 42 pruned at 0.5 A, Gasteiger charges; Morgan radius 2 / 2048).

    python bench/shape/dude_full_prep.py DUDE_DIR OUT_DIR [--confs 1] [--queries 5] [--query-confs 10]
        [--workers 2] [--targets ada,comt,...]

Queries are the first QUERIES actives of actives_final.ism in file order (no shuffle: "the first
active" is the one-query protocol), embedded with QUERY_CONFS conformers (the service's query
recipe). The library is every active and every decoy with CONFS conformers; dude-full.ts leaves the
query itself out of the library it screens. Targets run one after the other, smallest first, so a
run cut short leaves whole targets done. Checkpoint per target: every molecule is appended to
OUT_DIR/cache/<target>.jsonl as it is embedded (a rerun embeds only what is missing) and
OUT_DIR/done/<target>.json is written once the target is complete (counts, failures, wall time).
"""
import argparse
import json
import os
import sys
import time
from multiprocessing import Pool

sys.path.insert(0, os.path.dirname(__file__))
from dude_prep import load_cache, read, record  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("src")
    ap.add_argument("out")
    ap.add_argument("--confs", type=int, default=1)
    ap.add_argument("--queries", type=int, default=5)
    ap.add_argument("--query-confs", type=int, default=10)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--targets", default="")
    a = ap.parse_args()
    os.makedirs(f"{a.out}/cache", exist_ok=True)
    os.makedirs(f"{a.out}/done", exist_ok=True)
    names = a.targets.split(",") if a.targets else os.listdir(a.src)
    sets = {}
    for t in names:
        sets[t] = {"q": read(f"{a.src}/{t}/actives_final.ism.gz")[: a.queries],
                   "a": read(f"{a.src}/{t}/actives_final.ism.gz"),
                   "d": read(f"{a.src}/{t}/decoys_final.ism.gz")}
    targets = sorted(names, key=lambda t: (len(sets[t]["a"]) + len(sets[t]["d"]), t))
    confs = {"q": a.query_confs, "a": a.confs, "d": a.confs}
    for t in targets:
        if os.path.exists(f"{a.out}/done/{t}.json"):
            print(f"{t}: done already", flush=True)
            continue
        cache = load_cache(f"{a.out}/cache/{t}.jsonl")
        tasks = [(t, k, i, s, confs[k]) for k in "qad" for i, s in enumerate(sets[t][k])]
        todo = [x for x in tasks if (x[1], x[2], x[4]) not in cache]
        print(f"{t}: {len(tasks)} molecules, {len(todo)} to embed", flush=True)
        t0, cpu0 = time.time(), os.times()
        with open(f"{a.out}/cache/{t}.jsonl", "a") as f, Pool(a.workers) as pool:
            for n, (_, r) in enumerate(pool.imap(record, todo, chunksize=4), 1):
                f.write(json.dumps(r) + "\n")
                f.flush()
                cache[(r["kind"], r["i"], r["n"])] = r
                if n % 1000 == 0:
                    print(f"  {t} {n}/{len(todo)} {time.time() - t0:.0f} s", flush=True)
        cpu1 = os.times()
        recs = [cache[(x[1], x[2], x[4])] for x in tasks]
        done = {"target": t, "actives": len(sets[t]["a"]), "decoys": len(sets[t]["d"]),
                "queries": len(sets[t]["q"]), "confs": a.confs, "query_confs": a.query_confs,
                "failed": {k: sum(1 for r in recs if r["kind"] == k and "error" in r) for k in "qad"},
                "embedded_now": len(todo), "wall_s": round(time.time() - t0),
                "children_cpu_s": round(cpu1.children_user + cpu1.children_system
                                        - cpu0.children_user - cpu0.children_system),
                "finished": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        with open(f"{a.out}/done/{t}.json", "w") as f:
            json.dump(done, f)
        print(json.dumps(done), flush=True)


if __name__ == "__main__":
    main()
