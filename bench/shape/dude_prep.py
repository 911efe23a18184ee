"""DUD-E virtual-screening sets for bench/shape/dude.ts: per target, seeded samples of actives and
decoys from the shared data, embedded like the catalog (chem3d/embed.py: largest fragment, hydrogens,
ETKDGv3 seed 42 pruned at 0.5 A, Gasteiger charges) and Morgan radius 2 / 2048 bits.

    python bench/shape/dude_prep.py DUDE_DIR OUT.json.gz [ACTIVES DECOYS CONFS QUERY_CONFS]

The query of a target is its first sampled active (QUERY_CONFS conformers, default 10, the
service's query recipe); library molecules get CONFS (default 3, the first-pass catalog recipe).
"""
import gzip
import json
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "chem3d"))
from rdkit import Chem, DataStructs, RDLogger  # noqa: E402
from rdkit.Chem import rdFingerprintGenerator  # noqa: E402

from embed import EmbedError, embed_mol  # noqa: E402

RDLogger.DisableLog("rdApp.*")
MORGAN = rdFingerprintGenerator.GetMorganGenerator(radius=2, fpSize=2048)


def read(path):
    with gzip.open(path, "rt") as f:
        return [line.split()[0] for line in f if line.strip()]


def record(smi, confs, active):
    try:
        e = embed_mol(smi, confs=confs)
    except EmbedError:
        return None
    mol = Chem.MolFromSmiles(smi)
    fp = MORGAN.GetFingerprint(mol)
    return {
        "active": active,
        "atoms": e.atom_count,
        "confs": e.conf_count,
        "elements": list(e.elements),
        "charges": [round(v, 5) for v in memoryview(e.charges).cast("f")],
        "coords": [round(v, 3) for v in memoryview(e.coords).cast("f")],
        "on_bits": list(fp.GetOnBits()),
    }


def main():
    src, out = sys.argv[1], sys.argv[2]
    n_act, n_dec, confs, q_confs = (int(v) for v in (sys.argv[3:7] + ["10", "90", "3", "10"][len(sys.argv[3:7]):]))
    targets = {}
    for t in sorted(os.listdir(src)):
        rng = random.Random(f"dude-{t}")
        acts = read(f"{src}/{t}/actives_final.ism.gz")
        decs = read(f"{src}/{t}/decoys_final.ism.gz")
        acts = rng.sample(acts, min(n_act + 1, len(acts)))
        decs = rng.sample(decs, min(n_dec, len(decs)))
        query = record(acts[0], q_confs, True)
        lib = [r for r in (record(s, confs, True) for s in acts[1:]) if r]
        lib += [r for r in (record(s, confs, False) for s in decs) if r]
        targets[t] = {"query": query, "library": lib, "actives_total": len(read(f"{src}/{t}/actives_final.ism.gz")),
                      "decoys_total": len(read(f"{src}/{t}/decoys_final.ism.gz"))}
        print(t, len(lib), flush=True)
    with gzip.open(out, "wt") as f:
        json.dump({"meta": {"actives": n_act, "decoys": n_dec, "confs": confs, "query_confs": q_confs},
                   "targets": targets}, f)


if __name__ == "__main__":
    main()
