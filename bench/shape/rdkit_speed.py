"""RDKit's own shape alignment timed on the bench molecules, for bench/shape/run.ts (same run, same
pairs, one thread). usage: python rdkit_speed.py MOLECULES.json PAIRS.json N_PAIRS
Prints JSON: ms per conformer pair for rdShapeAlign.AlignMol (shape only) and for espsim's
procedure (Crippen O3A + grid ShapeTanimotoDist, its alignment step)."""
import json
import sys
import time

from rdkit import Chem
from rdkit.Chem import AllChem, rdMolAlign, rdMolDescriptors
from rdkit.Chem import rdShapeAlign as sa
from rdkit.Geometry import Point3D


def build(m):
    rw = Chem.RWMol()
    for z in m["elements"]:
        rw.AddAtom(Chem.Atom(z))
    mol = rw.GetMol()
    n = m["atomCount"]
    for c in range(m["confCount"]):
        conf = Chem.Conformer(n)
        conf.Set3D(True)
        for i in range(n):
            conf.SetAtomPosition(i, Point3D(*m["coords"][(c * n + i) * 3:(c * n + i) * 3 + 3]))
        mol.AddConformer(conf, assignId=True)
    return mol


def main():
    mols_path, pairs_path, n_pairs = sys.argv[1], sys.argv[2], int(sys.argv[3])
    records = json.load(open(mols_path))["molecules"]
    pairs = json.load(open(pairs_path))["pairs"][:n_pairs]
    need = {i for p in pairs for i in (p["probe"], p["ref"])}
    mols = {i: build(records[i]) for i in need}
    # O3A needs bonds: the SMILES give the same atom order as the stored conformers (AddHs after parse).
    typed = {i: Chem.AddHs(Chem.MolFromSmiles(records[i]["smiles"])) for i in need}
    t0, n = time.perf_counter(), 0
    for p in pairs:
        ref, prb = mols[p["ref"]], mols[p["probe"]]
        for rc in range(ref.GetNumConformers()):
            for pc in range(prb.GetNumConformers()):
                sa.AlignMol(ref, Chem.Mol(prb), refConfId=rc, probeConfId=pc, useColors=False)
                n += 1
    shape_ms = (time.perf_counter() - t0) * 1000 / n
    o3a_ms = None
    if all(typed[i].GetNumAtoms() == records[i]["atomCount"] for i in need):
        for i in need:
            for c in mols[i].GetConformers():
                typed[i].AddConformer(Chem.Conformer(c), assignId=True)
        t0, n = time.perf_counter(), 0
        for p in pairs:
            ref, prb = typed[p["ref"]], Chem.Mol(typed[p["probe"]])
            cr, cp = rdMolDescriptors._CalcCrippenContribs(ref), rdMolDescriptors._CalcCrippenContribs(prb)
            for rc in range(ref.GetNumConformers()):
                for pc in range(prb.GetNumConformers()):
                    rdMolAlign.GetCrippenO3A(prb, ref, cp, cr, pc, rc).Align()
                    AllChem.ShapeTanimotoDist(prb, ref, confId1=pc, confId2=rc)
                    n += 1
        o3a_ms = (time.perf_counter() - t0) * 1000 / n
    print(json.dumps({"rdkit_shape_align_ms": shape_ms, "espsim_o3a_grid_ms": o3a_ms, "conf_pairs": n}))


if __name__ == "__main__":
    main()
