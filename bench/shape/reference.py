"""Reference fixtures and scores for engine/shape (our TypeScript 3D shape and ESP scoring).

usage:
  python reference.py fixtures OUT_DIR         # test/fixtures/shape/{molecules,fixed,aligned}.json
  python reference.py sutherland FIXTURE_DIR   # test/fixtures/shape/sutherland.json (RDKit's RMSDs)
  python reference.py sutherland-embedded FIXTURE_DIR  # .../sutherland-embedded.json.gz (ETKDG poses)
  python reference.py bench OUT_DIR [MOLS PAIRS NOISE CONFS]  # bench/out/shape: DUD-E molecules and pair scores

Run in the venv .tools/shapebench (see requirements.txt). Conformers: RDKit ETKDGv3 with hydrogens,
fixed seeds; charges: Gasteiger (espsim's default). Coordinates are rounded to 1e-4 A before any
score is computed, so the scores hold for exactly the coordinates written.

Scores per pose (refscores.py has the definitions):
- grid_shape: espsim's shape similarity, 1 - AllChem.ShapeTanimotoDist (RDKit's grid, heavy atoms);
- pubchem_shape: RDKit rdShapeAlign.ScoreMol without colours (PubChem Gaussian shape Tanimoto);
- gauss_shape / gauss_shape_h: first-order Gaussian-volume Tanimoto, heavy atoms / with hydrogens;
- esp_carbo / esp_tanimoto: espsim's GetEspSim(integrate='gauss') Carbo and Tanimoto.
"""
import json
import random
import sys
import time

import numpy as np
from rdkit import Chem, rdBase
from rdkit.Chem import AllChem, rdMolAlign, rdMolDescriptors
from rdkit.Chem import rdShapeAlign as sa

import refscores as rs

ELEMENTS = set(rs.BONDI)
NO_COLOR = sa.ShapeInputOptions()
NO_COLOR.useColors = False


def embed(smiles, n_conf, seed):
    mol = Chem.MolFromSmiles(smiles)
    if mol is None:
        return None
    frags = Chem.GetMolFrags(mol, asMols=True)
    mol = max(frags, key=lambda m: m.GetNumHeavyAtoms())  # largest fragment (salts)
    if any(a.GetAtomicNum() not in ELEMENTS for a in mol.GetAtoms()):
        return None
    mol = Chem.AddHs(mol)
    params = AllChem.ETKDGv3()
    params.randomSeed = seed
    cids = list(AllChem.EmbedMultipleConfs(mol, n_conf, params))
    if len(cids) < n_conf:
        return None
    for cid in cids:  # round, so every score below holds for exactly the written coordinates
        conf = mol.GetConformer(cid)
        pos = np.round(conf.GetPositions(), 4)
        for i, p in enumerate(pos):
            conf.SetAtomPosition(i, p.tolist())
    AllChem.ComputeGasteigerCharges(mol)
    charges = np.array([a.GetDoubleProp("_GasteigerCharge") for a in mol.GetAtoms()])
    if not np.all(np.isfinite(charges)):
        return None
    return mol, np.round(charges, 6)


def record(mol, charges, mol_id, smiles):
    return {
        "id": mol_id,
        "smiles": smiles,
        "atomCount": mol.GetNumAtoms(),
        "confCount": mol.GetNumConformers(),
        "elements": [a.GetAtomicNum() for a in mol.GetAtoms()],
        "charges": charges.tolist(),
        "coords": [round(v, 4) for c in mol.GetConformers() for v in c.GetPositions().reshape(-1).tolist()],
    }


def pose_scores(prb, pc, qp, ref, rc, qr):
    xp, xr = prb.GetConformer(pc).GetPositions(), ref.GetConformer(rc).GetPositions()
    zp = np.array([a.GetAtomicNum() for a in prb.GetAtoms()])
    zr = np.array([a.GetAtomicNum() for a in ref.GetAtoms()])
    carbo, tani = rs.esp_scores(xp, qp, xr, qr)
    return {
        "grid_shape": 1 - AllChem.ShapeTanimotoDist(prb, ref, confId1=pc, confId2=rc),
        "pubchem_shape": sa.ScoreMol(prb, ref, NO_COLOR, NO_COLOR, pc, rc)[0],
        "gauss_shape": rs.shape_tanimoto(xp, zp, xr, zr),
        "gauss_shape_h": rs.shape_tanimoto(xp, zp, xr, zr, hydrogens=True),
        "esp_carbo": carbo,
        "esp_tanimoto": tani,
    }


def best_rdkit_align(prb, ref, grid=None):
    """rdShapeAlign.AlignMol (shape only) over every conformer pair: best Tanimoto and the time per pair.
    With `grid` (a dict), also espsim's grid shape at each of RDKit's optimal poses (outside the timing):
    grid["best"] = the best of them, grid["at_best_gauss"] = the one at RDKit's best Gaussian pair."""
    best, n, spent = -1.0, 0, 0.0
    for rc in range(ref.GetNumConformers()):
        for pc in range(prb.GetNumConformers()):
            work = Chem.Mol(prb)
            t0 = time.perf_counter()
            s = sa.AlignMol(ref, work, refConfId=rc, probeConfId=pc, useColors=False)[0]
            spent += time.perf_counter() - t0
            if grid is not None:
                g = 1 - AllChem.ShapeTanimotoDist(work, ref, confId1=pc, confId2=rc)
                grid["best"] = max(grid.get("best", -1.0), g)
                if s > best:
                    grid["at_best_gauss"] = g
            best, n = max(best, s), n + 1
    return best, spent * 1000 / n


def best_espsim(prb, qp, ref, qr, pose=None):
    """espsim's EmbedAlignScore on given conformers: Crippen O3A per pair, best grid shape, ESP there."""
    cp, cr = rdMolDescriptors._CalcCrippenContribs(prb), rdMolDescriptors._CalcCrippenContribs(ref)
    work = Chem.Mol(prb)
    best = (-1.0, 0, 0)
    for rc in range(ref.GetNumConformers()):
        for pc in range(prb.GetNumConformers()):
            rdMolAlign.GetCrippenO3A(work, ref, cp, cr, pc, rc).Align()
            s = 1 - AllChem.ShapeTanimotoDist(work, ref, confId1=pc, confId2=rc)
            if s > best[0]:
                best = (s, pc, rc)
    s, pc, rc = best
    rdMolAlign.GetCrippenO3A(work, ref, cp, cr, pc, rc).Align()
    xp, xr = work.GetConformer(pc).GetPositions(), ref.GetConformer(rc).GetPositions()
    if pose is not None:  # the winning O3A pose, for per-pair diagnosis against our aligner
        pose.update(probe_conf=pc, ref_conf=rc, probe_coords=[round(v, 4) for v in xp.reshape(-1).tolist()])
    return s, rs.esp_scores(xp, qp, xr, qr)[0]


def load_drugs(path, n, rng):
    rows = [line.split() for line in open(path) if line.strip()]
    rng.shuffle(rows)
    out = []
    for smi, cid in rows:
        m = Chem.MolFromSmiles(smi)
        if m is None or not 8 <= m.GetNumHeavyAtoms() <= 32 or m.GetNumAtoms() != len(Chem.GetMolFrags(m)[0]):
            continue
        out.append((cid, smi))
        if len(out) == n:
            break
    return out


def fixtures(out_dir):
    rng = random.Random(7)
    mols = []
    for cid, smi in load_drugs("/work/shared/data/catalog/patwalters_chembl_drugs.smi", 40, rng):
        e = embed(smi, 3, 2342)
        if e:
            mols.append((cid, smi, *e))
        if len(mols) == 16:
            break
    meta = {"rdkit": rdBase.rdkitVersion, "script": "bench/shape/reference.py fixtures", "confs": 3,
            "source": "shared/data/catalog/patwalters_chembl_drugs.smi (ChEMBL approved drugs)"}
    records = [record(m, q, i, s) for i, s, m, q in mols]
    for r, (_, _, m, _) in zip(records, mols):  # RDKit's USR of the heavy atoms, per conformer
        heavy = Chem.RemoveHs(m)
        r["usr"] = [list(rdMolDescriptors.GetUSR(heavy, confId=c)) for c in range(heavy.GetNumConformers())]
    write(out_dir + "/molecules.json", {"meta": meta, "molecules": records})

    fixed, aligned = [], []
    for k in range(24):  # fixed poses: conformer pairs after RDKit's own shape alignment, and raw ones
        a, b = rng.sample(range(len(mols)), 2)
        prb, qp, ref, qr = mols[a][2], mols[a][3], mols[b][2], mols[b][3]
        pc, rc = rng.randrange(3), rng.randrange(3)
        work = Chem.Mol(prb)
        if k % 4:
            sa.AlignMol(ref, work, refConfId=rc, probeConfId=pc, useColors=False)
            conf = work.GetConformer(pc)
            for i, p in enumerate(np.round(conf.GetPositions(), 4)):
                conf.SetAtomPosition(i, p.tolist())
        fixed.append({"probe": a, "probeConf": pc, "ref": b, "refConf": rc, "aligned": bool(k % 4),
                      "probeCoords": [round(v, 4) for v in work.GetConformer(pc).GetPositions().reshape(-1)],
                      **pose_scores(work, pc, qp, ref, rc, qr)})
    write(out_dir + "/fixed.json", {"meta": meta, "poses": fixed})

    for k in range(20):  # alignment: best over the 3 x 3 conformer pairs
        a, b = rng.sample(range(len(mols)), 2)
        prb, qp, ref, qr = mols[a][2], mols[a][3], mols[b][2], mols[b][3]
        shape, ms = best_rdkit_align(prb, ref)
        grid, esp = best_espsim(prb, qp, ref, qr)
        aligned.append({"probe": a, "ref": b, "rdkit_shape_align": shape, "rdkit_ms_per_pair": ms,
                        "espsim_grid_shape": grid, "espsim_esp_carbo": esp})
    write(out_dir + "/aligned.json", {"meta": meta, "pairs": aligned})


def write(path, obj):
    with open(path, "w") as f:
        json.dump(obj, f, separators=(",", ":"))
        f.write("\n")
    print("wrote", path)


def load_dude(n, rng):
    import glob
    import gzip
    rows = []
    for path in sorted(glob.glob("/work/shared/data/vs_benchmarks/dude_subset20/*/*_final.ism.gz")):
        target = path.split("/")[-2]
        active = "actives" in path
        with gzip.open(path, "rt") as f:
            rows += [(line.split()[0], line.split()[1], target, active) for line in f if line.strip()]
    rng.shuffle(rows)
    return rows[: n * 2]


def bench(out_dir, n_mols=1000, n_pairs=2000, n_noise=300, n_conf=3):
    """Molecules (n_conf conformers, seed 2342; a second embedding, seed 7, for the noise subset) and the
    reference scores of random pairs: espsim's procedure and RDKit's shape alignment, timed."""
    rng = random.Random(11)
    mols, t0 = [], time.perf_counter()
    for smi, mid, target, active in load_dude(n_mols, rng):
        e = embed(smi, n_conf, 2342)
        if e:
            mols.append((f"{target}:{mid}", smi, *e, target, active))
        if len(mols) == n_mols:
            break
    embed_s = time.perf_counter() - t0
    meta = {"rdkit": rdBase.rdkitVersion, "script": "bench/shape/reference.py bench", "confs": n_conf,
            "source": "shared/data/vs_benchmarks/dude_subset20 (actives and decoys of 20 targets)",
            "etkdg_ms_per_conformer": embed_s * 1000 / (n_conf * len(mols))}
    records = []
    for i, s, m, q, target, active in mols:
        r = record(m, q, i, s)
        r.update(target=target, active=active)
        records.append(r)
    write(out_dir + "/molecules.json", {"meta": meta, "molecules": records})
    pairs, rd_ms, es_ms = [], 0.0, 0.0
    second = {}
    for k in range(n_pairs):
        a, b = rng.sample(range(len(mols)), 2)
        prb, qp, ref, qr = mols[a][2], mols[a][3], mols[b][2], mols[b][3]
        rd_grid, pose = {}, {}
        shape, ms = best_rdkit_align(prb, ref, rd_grid)
        t1 = time.perf_counter()
        grid, esp = best_espsim(prb, qp, ref, qr, pose)
        es_ms += (time.perf_counter() - t1) * 1000 / n_conf**2
        rd_ms += ms
        row = {"probe": a, "ref": b, "rdkit_shape_align": shape,
               "espsim_grid_shape": grid, "espsim_esp_carbo": esp,
               "rdkit_align_grid_shape": rd_grid["best"], "rdkit_align_grid_at_best": rd_grid["at_best_gauss"],
               "espsim_pose": pose}
        if k < n_noise:  # the reference's own noise: the same pair with other conformers (seed 7)
            for idx in (a, b):
                if idx not in second:
                    second[idx] = embed(mols[idx][1], n_conf, 7)
            if second[a] and second[b]:
                g2, e2 = best_espsim(second[a][0], second[a][1], second[b][0], second[b][1])
                row.update(espsim_grid_shape_seed7=g2, espsim_esp_carbo_seed7=e2)
        pairs.append(row)
        if k % 200 == 0:
            print(k, "pairs", flush=True)
    meta.update(rdkit_align_ms_per_conf_pair=rd_ms / n_pairs, espsim_ms_per_conf_pair=es_ms / n_pairs)
    write(out_dir + "/pairs.json", {"meta": meta, "pairs": pairs})


def sutherland(fixture_dir):
    """RDKit's rdShapeAlign on the Sutherland sets copied into the fixtures: each ligand, moved off its
    given pose, aligned onto the template; heavy-atom RMSD to the given pose (test/engine/shape)."""
    import gzip
    out = {}
    for name in ("ace", "ache", "gpb", "therm"):
        with gzip.open(f"{fixture_dir}/sutherland/{name}_data.sdf.gz") as f:
            mols = [m for m in Chem.ForwardSDMolSupplier(f, removeHs=False)]
        tpl = next(m for m in mols if m.GetProp("IsTemplate") == "1")
        rmsd = []
        for m in mols:
            if m is tpl:
                continue
            work = Chem.Mol(m)
            conf = work.GetConformer()
            for i in range(work.GetNumAtoms()):  # the test's move: 90 degrees about z, then a shift
                p = conf.GetAtomPosition(i)
                conf.SetAtomPosition(i, (-p.y + 5, p.x - 3, p.z + 2))
            sa.AlignMol(tpl, work, useColors=False)
            heavy = [a.GetIdx() for a in m.GetAtoms() if a.GetAtomicNum() > 1]
            d = [(work.GetConformer().GetAtomPosition(i) - m.GetConformer().GetAtomPosition(i)).LengthSq()
                 for i in heavy]
            rmsd.append(float(np.sqrt(np.mean(d))))
        out[name] = {"rdkit_shape_align_rmsd": rmsd}
    write(f"{fixture_dir}/sutherland.json", {"meta": {"rdkit": rdBase.rdkitVersion}, "sets": out})


def sutherland_embedded(fixture_dir, per_set=15, n_conf=10):
    """Crystal-pose recovery from embedded poses: for every k-th ligand of the Sutherland sets copied
    into the fixtures (per_set of each), ETKDGv3 conformers made from the ligand's graph alone (the
    query recipe: n_conf, pruned at 0.5 A, seed 42, same atom order as the SDF), each aligned onto the
    template's given pose with RDKit's rdShapeAlign (shape only); the conformer with the best shape
    Tanimoto is the answer, its heavy-atom RMSD to the ligand's given (aligned crystal) pose the
    figure. Also the best RMSD any of the conformers reaches that way (what the conformers allow)."""
    import gzip
    out = {}
    for name in ("ace", "ache", "gpb", "therm"):
        with gzip.open(f"{fixture_dir}/sutherland/{name}_data.sdf.gz") as f:
            mols = [m for m in Chem.ForwardSDMolSupplier(f, removeHs=False)]
        tpl = next(m for m in mols if m.GetProp("IsTemplate") == "1")
        others = [m for m in mols if m is not tpl]
        step = len(others) / per_set
        ligands = []
        for k in range(per_set):
            m = others[int(k * step)]
            work = Chem.Mol(m)
            params = AllChem.ETKDGv3()
            params.randomSeed = 42
            params.pruneRmsThresh = 0.5
            cids = list(AllChem.EmbedMultipleConfs(work, n_conf, params))
            heavy = [a.GetIdx() for a in m.GetAtoms() if a.GetAtomicNum() > 1]
            given = m.GetConformer().GetPositions()
            coords, scores, rmsds = [], [], []
            for cid in cids:
                conf = work.GetConformer(cid)
                pos = np.round(conf.GetPositions(), 3)  # the coordinates written, exactly
                for i, p in enumerate(pos):
                    conf.SetAtomPosition(i, p.tolist())
                coords.extend(int(round(v * 1000)) for v in pos.reshape(-1))
                probe = Chem.Mol(work, confId=cid)
                s = sa.AlignMol(tpl, probe, useColors=False)[0]
                d = probe.GetConformer().GetPositions()[heavy] - given[heavy]
                scores.append(float(s))
                rmsds.append(float(np.sqrt((d * d).sum(axis=1).mean())))
            best = int(np.argmax(scores))
            ligands.append({
                "name": m.GetProp("_Name"),
                "atoms": work.GetNumAtoms(),
                "confs": len(cids),
                "coords_milli": coords,
                "rdkit_best_shape": scores[best],
                "rdkit_rmsd": rmsds[best],
                "rdkit_min_rmsd": min(rmsds),
            })
        out[name] = {"template": tpl.GetProp("_Name"), "ligands": ligands}
    path = f"{fixture_dir}/sutherland-embedded.json.gz"
    with gzip.open(path, "wt") as f:
        json.dump({"meta": {"rdkit": rdBase.rdkitVersion, "per_set": per_set, "confs": n_conf, "seed": 42,
                            "prune_rms": 0.5}, "sets": out}, f, separators=(",", ":"))
    print("wrote", path)
    for name, v in out.items():
        r = [l["rdkit_rmsd"] for l in v["ligands"]]
        print(name, "rdkit median %.2f, within 2 A %.2f" % (float(np.median(r)), np.mean(np.array(r) < 2)))


if __name__ == "__main__":
    if sys.argv[1] == "fixtures":
        fixtures(sys.argv[2])
    elif sys.argv[1] == "sutherland":
        sutherland(sys.argv[2])
    elif sys.argv[1] == "sutherland-embedded":
        sutherland_embedded(sys.argv[2])
    elif sys.argv[1] == "bench":
        bench(sys.argv[2], *map(int, sys.argv[3:7]))
    else:
        sys.exit(__doc__)
