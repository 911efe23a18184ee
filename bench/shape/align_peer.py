"""The peer of the exhaustive 3D job benchmark (bench/shape/job-bench.ts): RDKit's own Gaussian
shape alignment (rdShapeAlign.AlignMol, shape only, as in rdkit_speed.py) of a sample of the job's
rows onto its query, every conformer pair (the job's exact stage scores the best over them), one
thread. usage: python align_peer.py SAMPLE.json
SAMPLE.json: {"query": MOL, "rows": [MOL, ...]} with MOL = {atomCount, confCount, elements, coords}.
Prints JSON: rows, conf_pairs, ms_per_conf_pair, cpu_s, and the best shape Tanimoto per row.
"""
import json
import sys
import time

from rdkit import Chem
from rdkit.Chem import rdShapeAlign as sa

from rdkit_speed import build


def main():
    data = json.load(open(sys.argv[1]))
    ref = build(data["query"])
    rows = [build(m) for m in data["rows"]]
    best, n = [], 0
    c0, t0 = time.process_time(), time.perf_counter()
    for prb in rows:
        top = -1.0
        for rc in range(ref.GetNumConformers()):
            for pc in range(prb.GetNumConformers()):
                shape, _color = sa.AlignMol(ref, Chem.Mol(prb), refConfId=rc, probeConfId=pc, useColors=False)
                top = max(top, shape)
                n += 1
        best.append(round(top, 4))
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    print(json.dumps({"rows": len(rows), "conf_pairs": n, "wall_s": round(wall, 3), "cpu_s": round(cpu, 3),
                      "ms_per_conf_pair": round(wall * 1000 / n, 3), "cpu_ms_per_conf_pair": round(cpu * 1000 / n, 3),
                      "best_shape": best}))


if __name__ == "__main__":
    main()
