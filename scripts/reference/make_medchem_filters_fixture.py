"""Builds test/fixtures/medchem-filters-reference.json: Python RDKit verdicts of the legacy
filters `Murcko scaffold hop`, `Regioisomers` and `No rare atoms` (docs/filters.md), which
engine/filters/medchem.ts must reproduce.

Run with the offline venv (RDKit 2026.9.1, the same version as @rdkit/rdkit):
    .tools/pyoff/bin/python scripts/reference/make_medchem_filters_fixture.py

Molecules: every input of test/fixtures/filters-reference.json plus hand-picked positional isomer
series (cresols, toluidines, chlorobenzoic acids, aminopyridines, ...) and molecules holding rare
atoms (B, Si, Se, metals, a dummy atom), so that every verdict occurs.
Definitions, as the service documents them:
- No rare atoms: every atom's symbol is in {H, C, N, O, F, P, S, Cl, Br, I};
- Murcko scaffold hop: scaffold(m) != '' and scaffold(m) not in {scaffold(q)} and the scaffolds of
  q's '.'-separated fragments; scaffold = MolToSmiles(MurckoScaffold.GetScaffoldForMol(m));
- Regioisomers: CalcMolFormula(m) == CalcMolFormula(q), scaffold(m) == scaffold(q) and
  MolToSmiles(m, isomericSmiles=False) != MolToSmiles(q, isomericSmiles=False).
"""
import json
from pathlib import Path

import rdkit
from rdkit import Chem
from rdkit.Chem.rdMolDescriptors import CalcMolFormula
from rdkit.Chem.Scaffolds import MurckoScaffold

ROOT = Path(__file__).resolve().parents[2]
COMMON = {'H', 'C', 'N', 'O', 'F', 'P', 'S', 'Cl', 'Br', 'I'}
ISOMERS = [
    'Cc1ccccc1O', 'Cc1cccc(O)c1', 'Cc1ccc(O)cc1',
    'Cc1ccccc1N', 'Cc1cccc(N)c1', 'Cc1ccc(N)cc1', 'NCc1ccccc1',
    'OC(=O)c1ccccc1Cl', 'OC(=O)c1cccc(Cl)c1', 'OC(=O)c1ccc(Cl)cc1',
    'Nc1ccccn1', 'Nc1cccnc1', 'Nc1ccncc1',
    'CC(=O)Oc1ccccc1C(=O)O', 'CC(=O)Oc1cccc(C(=O)O)c1', 'CC(=O)Oc1ccc(C(=O)O)cc1',
    'CCCO', 'CC(C)O', 'C[C@H](N)C(=O)O', 'C[C@@H](N)C(=O)O', 'NCCC(=O)O',
    'c1ccc2ncccc2c1', 'c1ccc2cnccc2c1', 'Oc1ccc2ccccc2c1', 'Oc1cccc2ccccc12',
]
RARE = ['OB(O)c1ccccc1', 'C[Si](C)(C)c1ccccc1', 'c1ccc([Se]c2ccccc2)cc1', '[Na+].[O-]C(=O)c1ccccc1',
        'CC(=O)O[Pt]', '*c1ccccc1', 'FC(F)(F)c1ccccc1', 'Ic1ccccc1', 'OP(=O)(O)O']
QUERIES = ['Cc1ccccc1O', 'OC(=O)c1cccc(Cl)c1', 'Nc1cccnc1', 'CC(=O)Oc1ccccc1C(=O)O', 'CCCO',
           'C[C@H](N)C(=O)O', 'c1ccc2ncccc2c1', 'CC(C)Cc1ccc(C(C)C(=O)O)cc1', 'c1ccccc1.C1CCNCC1']


def scaffold(m):
    return Chem.MolToSmiles(MurckoScaffold.GetScaffoldForMol(m))


def main():
    ref = json.loads((ROOT / 'test' / 'fixtures' / 'filters-reference.json').read_text())
    seen, molecules = set(), []
    for s in [m['input'] for m in ref['molecules']] + ISOMERS + RARE:
        m = Chem.MolFromSmiles(s)
        if m is None or s in seen:
            continue
        seen.add(s)
        molecules.append((s, m))
    rows = []
    for s, m in molecules:
        rows.append({
            'smiles': s,
            'no_rare_atoms': all(a.GetSymbol() in COMMON for a in m.GetAtoms()),
            'scaffold': scaffold(m),
            'formula': CalcMolFormula(m),
            'flat': Chem.MolToSmiles(m, isomericSmiles=False),
        })
    queries = []
    for qs in QUERIES:
        q = Chem.MolFromSmiles(qs)
        qscaf = {scaffold(q)} | {scaffold(Chem.MolFromSmiles(p)) for p in qs.split('.')}
        qscaf.discard('')
        qf, qflat, qs0 = CalcMolFormula(q), Chem.MolToSmiles(q, isomericSmiles=False), scaffold(q)
        queries.append({
            'smiles': qs,
            'scaffold_hop': [r['scaffold'] != '' and r['scaffold'] not in qscaf for r in rows],
            'regioisomer': [r['formula'] == qf and r['scaffold'] == qs0 and r['flat'] != qflat for r in rows],
        })
    out = {
        'rdkit_version': rdkit.__version__,
        'molecules': [{'smiles': r['smiles'], 'no_rare_atoms': r['no_rare_atoms']} for r in rows],
        'queries': queries,
    }
    path = ROOT / 'test' / 'fixtures' / 'medchem-filters-reference.json'
    path.write_text(json.dumps(out, separators=(',', ':')) + '\n')
    hops = sum(sum(q['scaffold_hop']) for q in queries)
    regio = sum(sum(q['regioisomer']) for q in queries)
    rare = sum(not r['no_rare_atoms'] for r in rows)
    print(f'{len(rows)} molecules, {len(queries)} queries: {hops} hops, {regio} regioisomers, {rare} with rare atoms')


if __name__ == '__main__':
    main()
