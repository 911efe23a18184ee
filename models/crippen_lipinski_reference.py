"""Python RDKit reference values for engine/chem/crippen.ts and engine/chem/lipinski.ts.

For every molecule of the reference sets (bench 10k, TDC ADMET data, ZINC sample, the edge cases of
test/fixtures/rdkit-reference.json) it computes Crippen.MolLogP / MolMR, rdMolDescriptors.CalcNumHBD /
CalcNumHBA / CalcNumRotatableBonds and the Crippen type counts of models/crippen_types.py, and checks
that the type-based sum equals MolLogP / MolMR exactly. Writes
  * bench/out/chem/crippen-lipinski-all.jsonl.gz: all molecules, read by bench/chem/check-crippen-lipinski.ts
  * test/fixtures/crippen-lipinski-reference.json: ~1500 molecules for the unit tests: every molecule
    of the edge-case set, a few molecules per Crippen table row (so every row the sets hit is covered),
    hand-picked cases, then a fixed-seed random sample.

Regenerate (about 4 minutes on 2 cores):
  .tools/pyoff/bin/python models/crippen_lipinski_reference.py
"""
from __future__ import annotations

import glob
import gzip
import json
import random
import sys
from multiprocessing import Pool
from pathlib import Path

import pandas as pd
from rdkit import Chem, RDLogger, rdBase
from rdkit.Chem import Crippen
from rdkit.Chem import rdMolDescriptors as rdmd

sys.path.insert(0, str(Path(__file__).resolve().parent))
import crippen_types as CT  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
ALL_OUT = ROOT / "bench" / "out" / "chem" / "crippen-lipinski-all.jsonl.gz"
FIXTURE = ROOT / "test" / "fixtures" / "crippen-lipinski-reference.json"
FIXTURE_SIZE = 1500
PER_ROW = 3
EXTRA = [
    "C", "O", "[H][H]", "[2H]C([2H])([2H])Cl", "[2H]O[2H]", "C[N+](C)(C)C", "[NH4+]", "[Na+].[Cl-]", "[OH-]",
    "O=[N+]([O-])c1ccccc1", "[O-][n+]1ccccc1", "Cn1ccnc1", "c1ccc2[nH]ccc2c1", "CC(=O)[O-]", "FC(F)(F)C(F)(F)F",
    "C#CC#N", "CC(C)(C)c1ccccc1", "C[Si](C)(C)C", "[Fe+2]", "B(O)O", "OP(=O)(O)O", "NS(=O)(=O)c1ccccc1",
    "C=C=C", "N=C(N)N", "NC=O", "C[S+](C)C", "ClI(Cl)Cl", "[I+]", "*C", "C[N]C", "[CH3]", "C->[Fe]",
    "CC(=O)NC", "CC(=O)OC", "c1ccccc1-c1ccccc1", "CC(C)(C)C(C)(C)C", "C1CC1C1CC1", "CC#CC", "OO", "S", "[SH-]",
    "C" * 500,  # more than 1000 C-H hydrogens: RDKit's capped typing differs, crippen() returns null
]


def read_sets() -> dict[str, list[str]]:
    sets: dict[str, list[str]] = {}
    with gzip.open(ROOT / "bench/admet/data/molecules-10k.smi.gz", "rt") as f:
        sets["bench10k"] = [line.split()[0] for line in f if line.strip()]
    tdc: list[str] = []
    files = sorted(glob.glob(str(ROOT / "models/data/*.csv.gz"))) + sorted(glob.glob(str(ROOT / "models/data/official_admet_group/*/*.csv.gz")))
    for p in files:
        if "admet_ai_property_metadata" not in p:
            tdc.extend(str(s) for s in pd.read_csv(p)["Drug"])
    sets["tdc"] = list(dict.fromkeys(tdc))
    sets["zinc"] = [str(s) for s in pd.read_csv(ROOT / "catalogs/sources/zinc15_sample.tsv.gz", sep="\t")["smiles"]]
    edge = json.loads((ROOT / "test/fixtures/rdkit-reference.json").read_text())
    sets["edge"] = [m["input"] for m in edge["molecules"]] + EXTRA
    return sets


def reference(smi: str) -> dict:
    RDLogger.DisableLog("rdApp.*")
    m = Chem.MolFromSmiles(smi)
    if m is None:
        return {"s": smi, "invalid": True}
    logp, mr = Crippen.MolLogP(m), Crippen.MolMR(m)
    _, rows = CT.crippen_row_per_atom(m)
    counts = CT.crippen_type_counts(m)
    uncapped = CT.crippen_logp_mr(m, None)
    return {
        "s": smi,
        "logp": logp,
        "mr": mr,
        "hbd": rdmd.CalcNumHBD(m),
        "hba": rdmd.CalcNumHBA(m),
        "rot": rdmd.CalcNumRotatableBonds(m),
        "types": {CT.LABELS[i]: int(c) for i, c in enumerate(counts) if c},
        "rows": sorted({r for r in rows if r >= 0}),
        # the type-based sum (RDKit's 1000-match cap applied) must equal MolLogP / MolMR exactly
        "sum_ok": CT.crippen_logp_mr(m, 1000) == (logp, mr),
        # RDKit's cap changed the result: the TS crippen() returns null here
        "capped": uncapped != (logp, mr),
    }


def main() -> None:
    sets = read_sets()
    unique = list(dict.fromkeys(s for smis in sets.values() for s in smis))
    with Pool() as pool:
        refs = dict(zip(unique, pool.map(reference, unique, chunksize=200)))
    ALL_OUT.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(ALL_OUT, "wt") as f:
        for name, smis in sets.items():
            for s in smis:
                f.write(json.dumps({"set": name, **refs[s]}) + "\n")
    valid = [r for r in refs.values() if not r.get("invalid")]
    bad_sum = [r["s"] for r in valid if not r["sum_ok"]]
    print(f"{len(unique)} molecules, {len(unique) - len(valid)} not parsed, {len(bad_sum)} type sums != MolLogP/MolMR, "
          f"{sum(r['capped'] for r in valid)} capped by RDKit's 1000 matches")
    for s in bad_sum[:20]:
        print("  sum mismatch:", s)

    # fixture: edge cases, then PER_ROW molecules per table row (two smallest, one random), then a random sample
    rng = random.Random(17)
    chosen = list(dict.fromkeys(s for s in sets["edge"] if not refs[s].get("invalid")))
    by_row: dict[int, list[str]] = {}
    for r in sorted(valid, key=lambda r: (len(r["s"]), r["s"])):
        for row in r["rows"]:
            by_row.setdefault(row, []).append(r["s"])
    for row in sorted(by_row):
        smis = by_row[row]
        picks = smis[:PER_ROW - 1] + ([rng.choice(smis)] if len(smis) >= PER_ROW else [])
        chosen.extend(picks)
    chosen = list(dict.fromkeys(chosen))
    pool_rest = [r["s"] for r in valid if r["s"] not in set(chosen) and len(r["s"]) <= 200]
    chosen += rng.sample(pool_rest, max(0, FIXTURE_SIZE - len(chosen)))
    print(f"fixture: {len(chosen)} molecules, table rows never hit by the sets: "
          f"{[i for i in range(len(CT._ROWS)) if i not in by_row]}")
    keys = ("logp", "mr", "hbd", "hba", "rot", "types", "capped")
    doc = {
        "rdkit_version": rdBase.rdkitVersion,
        "generated_by": "models/crippen_lipinski_reference.py",
        "labels": CT.LABELS,
        "molecules": [{"smiles": s, **{k: refs[s][k] for k in keys}} for s in chosen],
    }
    FIXTURE.write_text(json.dumps(doc, separators=(",", ":")).replace('{"smiles"', '\n{"smiles"') + "\n")


if __name__ == "__main__":
    main()
