"""DUD-E virtual-screening sets for bench/shape/dude.ts: per target, seeded samples of actives and
decoys from the shared data, embedded like the catalog (chem3d/embed.py: largest fragment, hydrogens,
ETKDGv3 seed 42 pruned at 0.5 A, Gasteiger charges) and Morgan radius 2 / 2048 bits.

    python bench/shape/dude_prep.py DUDE_DIR OUT_DIR [--queries 5] [--actives 30] [--decoys 1000]
        [--confs 3] [--query-confs 10] [--workers 2] [--budget-min 40]

Per target the actives and decoys are shuffled with a seed fixed by the target's name. The first
QUERIES actives are the queries (QUERY_CONFS conformers, the service's query recipe); the next
ACTIVES actives and the first DECOYS decoys are the library (CONFS conformers, the first-pass
catalog recipe). Work is ordered queries and actives first, then decoys in rounds of 25 per target,
so a run cut by the time budget leaves every target with about as many decoys. Every embedded
molecule is cached in OUT_DIR/cache/<target>.jsonl: a rerun with a larger DECOYS (or budget) only
embeds what is new. OUT_DIR/dude.json.gz gets, per target, the queries, the library actives and the
same number of decoys for every target (the smallest fully processed prefix; failures are counted
and skipped).
"""
import argparse
import gzip
import json
import os
import random
import sys
import time
from multiprocessing import Pool

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "chem3d"))
from rdkit import Chem, RDLogger  # noqa: E402
from rdkit.Chem import rdFingerprintGenerator  # noqa: E402

from embed import EmbedError, embed_mol  # noqa: E402

RDLogger.DisableLog("rdApp.*")
MORGAN = rdFingerprintGenerator.GetMorganGenerator(radius=2, fpSize=2048)
ROUND = 25


def read(path):
    with gzip.open(path, "rt") as f:
        return [line.split()[0] for line in f if line.strip()]


def record(task):
    target, kind, i, smi, confs = task
    out = {"kind": kind, "i": i, "smi": smi, "n": confs}
    try:
        e = embed_mol(smi, confs=confs, timeout_s=60)
    except EmbedError as err:
        out["error"] = str(err)
        return target, out
    except Exception as err:  # noqa: BLE001 - an RDKit failure of one molecule must not end the run
        out["error"] = f"{type(err).__name__}: {err}"
        return target, out
    fp = MORGAN.GetFingerprint(Chem.MolFromSmiles(smi))
    out.update(
        atoms=e.atom_count,
        confs=e.conf_count,
        elements=list(e.elements),
        charges=[round(v, 5) for v in memoryview(e.charges).cast("f")],
        coords=[round(v, 3) for v in memoryview(e.coords).cast("f")],
        on_bits=list(fp.GetOnBits()),
    )
    return target, out


def load_cache(path):
    done = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                try:
                    r = json.loads(line)
                except json.JSONDecodeError:
                    continue  # a line cut by a killed run
                done[(r["kind"], r["i"], r["n"])] = r
    return done


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("src")
    ap.add_argument("out")
    ap.add_argument("--queries", type=int, default=5)
    ap.add_argument("--actives", type=int, default=30)
    ap.add_argument("--decoys", type=int, default=1000)
    ap.add_argument("--confs", type=int, default=3)
    ap.add_argument("--query-confs", type=int, default=10)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--budget-min", type=float, default=40)
    a = ap.parse_args()
    os.makedirs(f"{a.out}/cache", exist_ok=True)
    targets = sorted(os.listdir(a.src))
    sets, caches, totals = {}, {}, {}
    for t in targets:
        rng = random.Random(f"dude-{t}")
        acts, decs = read(f"{a.src}/{t}/actives_final.ism.gz"), read(f"{a.src}/{t}/decoys_final.ism.gz")
        totals[t] = (len(acts), len(decs))
        rng.shuffle(acts)
        rng.shuffle(decs)
        sets[t] = {"q": acts[: a.queries], "a": acts[a.queries : a.queries + a.actives], "d": decs[: a.decoys]}
        caches[t] = load_cache(f"{a.out}/cache/{t}.jsonl")
    confs = {"q": a.query_confs, "a": a.confs, "d": a.confs}

    tasks = [(t, k, i, s, confs[k]) for t in targets for k in "qa" for i, s in enumerate(sets[t][k])]
    for start in range(0, a.decoys, ROUND):
        tasks += [(t, "d", i, s, a.confs) for t in targets for i, s in enumerate(sets[t]["d"]) if start <= i < start + ROUND]
    todo = [x for x in tasks if (x[1], x[2], x[4]) not in caches[x[0]]]
    print(f"{len(tasks)} molecules, {len(todo)} to embed", flush=True)
    t0 = time.time()
    files = {t: open(f"{a.out}/cache/{t}.jsonl", "a") for t in targets}
    n_confs = 0
    with Pool(a.workers) as pool:
        for n, (t, r) in enumerate(pool.imap(record, todo), 1):
            files[t].write(json.dumps(r) + "\n")
            files[t].flush()
            caches[t][(r["kind"], r["i"], r["n"])] = r
            n_confs += r.get("confs", 0)
            el = time.time() - t0
            if n % 200 == 0:
                print(f"{n}/{len(todo)} {el:.0f} s, {1000 * el / max(n_confs, 1):.1f} ms wall per conformer", flush=True)
            if el > a.budget_min * 60:
                print(f"budget reached after {n} molecules", flush=True)
                pool.terminate()
                break
    for f in files.values():
        f.close()

    def prefix(t):
        n = 0
        while n < len(sets[t]["d"]) and ("d", n, a.confs) in caches[t]:
            n += 1
        return n

    n_dec = min(prefix(t) for t in targets)
    out, failed = {}, 0
    for t in targets:
        c = caches[t]
        pick = lambda k, n, nc: [c[(k, i, nc)] for i in range(n) if (k, i, nc) in c]  # noqa: E731
        recs = pick("q", len(sets[t]["q"]), a.query_confs) + pick("a", len(sets[t]["a"]), a.confs) + pick("d", n_dec, a.confs)
        failed += sum(1 for r in recs if "error" in r)
        ok = [r for r in recs if "error" not in r]
        out[t] = {
            "queries": [r for r in ok if r["kind"] == "q"],
            "library": [dict(r, active=r["kind"] == "a") for r in ok if r["kind"] != "q"],
            "actives_total": totals[t][0],
            "decoys_total": totals[t][1],
        }
    meta = {"queries": a.queries, "actives": a.actives, "decoys": n_dec, "confs": a.confs,
            "query_confs": a.query_confs, "failed": failed, "embed_s": round(time.time() - t0)}
    with gzip.open(f"{a.out}/dude.json.gz", "wt") as f:
        json.dump({"meta": meta, "targets": out}, f)
    print(json.dumps(meta), flush=True)


if __name__ == "__main__":
    main()
