"""Builds catalogs/spaces/sources/zinc15_autogrow4_space.txt.gz: a purchasable synthon space from the
AutoGrow4 two-component reactions (All_Rxns) and the ZINC15 building blocks AutoGrow4 ships.

Offline data preparation (RDKit in Python), run once; the service builds the space from the output
at first start. For each reaction and each reactant slot, every building block of that slot's
functional-group library is reacted (RDKit RunReactants) with the reaction's example partner; the
product atoms that came from the building block (plus template atoms created next to them) form
the synthon, and each product bond to the partner's side becomes a connector. Connector labels
come from the product template, so they are the same for every building block of a reaction.

    .tools/pysyn/bin/python scripts/data/make_autogrow4_space.py \
        --data ../shared/data [--out catalogs/spaces/sources/zinc15_autogrow4_space.txt.gz] [--jobs 2]
"""
import argparse
import gzip
import json
from collections import defaultdict
from multiprocessing import Pool
from pathlib import Path

from rdkit import Chem, RDLogger
from rdkit.Chem import AllChem

RDLogger.DisableLog('rdApp.*')
ROOT = Path(__file__).resolve().parents[2]
MAX_SITES = 2


def template_slots(rxn):
    """Slot of each product-template atom (by map number, else its nearest mapped neighbour) and
    the template bonds that join two slots, in a fixed order (their connector labels)."""
    mapslot = {}
    for k in range(rxn.GetNumReactantTemplates()):
        for a in rxn.GetReactantTemplate(k).GetAtoms():
            if a.GetAtomMapNum():
                mapslot[a.GetAtomMapNum()] = k
    prod = rxn.GetProductTemplate(0)
    slot = {a.GetIdx(): mapslot.get(a.GetAtomMapNum()) for a in prod.GetAtoms()}
    changed = True
    while changed:
        changed = False
        for a in prod.GetAtoms():
            if slot[a.GetIdx()] is None:
                for n in a.GetNeighbors():
                    if slot[n.GetIdx()] is not None:
                        slot[a.GetIdx()] = slot[n.GetIdx()]
                        changed = True
                        break
    cross = sorted(
        tuple(sorted((b.GetBeginAtomIdx(), b.GetEndAtomIdx())))
        for b in prod.GetBonds()
        if slot[b.GetBeginAtomIdx()] != slot[b.GetEndAtomIdx()]
    )
    return slot, cross, prod.GetNumAtoms()


def synthons_of(task):
    rxn_smarts, k, partners, bbs = task
    rxn = AllChem.ReactionFromSmarts(rxn_smarts)
    rxn.Initialize()
    slot, cross, ntemplate = template_slots(rxn)
    if None in slot.values() or not cross or len(cross) > 4:
        return []
    labels = {pair: i + 1 for i, pair in enumerate(cross)}
    partner_mols = [Chem.MolFromSmiles(p) for p in partners]
    out = []
    for smiles, zid in bbs:
        bb = Chem.MolFromSmiles(smiles)
        if bb is None:
            continue
        reactants = list(partner_mols)
        reactants[k] = bb
        seen = set()
        try:
            products = rxn.RunReactants(tuple(reactants), 20)
        except Exception:
            continue
        for prods in products:
            p = Chem.RWMol(prods[0])
            try:
                Chem.SanitizeMol(p)
                Chem.Kekulize(p, clearAromaticFlags=True)
            except Exception:
                continue
            # Product atoms: template atoms first (their slot from the template), then the atoms
            # carried over from a reactant (react_idx says which).
            owner = []
            for a in p.GetAtoms():
                if a.GetIdx() < ntemplate:
                    owner.append(slot[a.GetIdx()])
                else:
                    owner.append(a.GetIntProp('react_idx') if a.HasProp('react_idx') else -1)
            if -1 in owner:
                continue
            for i, j in cross:
                b = p.GetBondBetweenAtoms(i, j)
                if b is None:
                    break
                mine = i if owner[i] == k else j if owner[j] == k else None
                if mine is None:
                    continue
                d = p.AddAtom(Chem.Atom(0))
                p.GetAtomWithIdx(d).SetIsotope(labels[(i, j)])
                p.AddBond(mine, d, b.GetBondType())
                owner.append(k)
            else:
                for idx in sorted((a.GetIdx() for a in p.GetAtoms() if owner[a.GetIdx()] != k), reverse=True):
                    p.RemoveAtom(idx)
                try:
                    frag = p.GetMol()
                    for a in frag.GetAtoms():
                        a.SetNoImplicit(False) if a.GetAtomicNum() != 0 else None
                    Chem.SanitizeMol(frag)
                    smi = Chem.MolToSmiles(frag)
                except Exception:
                    continue
                if '.' in smi or smi in seen:
                    continue
                seen.add(smi)
                out.append((smi, zid if len(seen) == 1 else f'{zid}_{len(seen)}'))
                if len(seen) >= MAX_SITES:
                    break
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--data', default=str(ROOT.parent / 'shared' / 'data'))
    ap.add_argument('--out', default=str(ROOT / 'catalogs' / 'spaces' / 'sources' / 'zinc15_autogrow4_space.txt.gz'))
    ap.add_argument('--jobs', type=int, default=2)
    ap.add_argument('--limit', type=int, default=0, help='building blocks per library (0 = all)')
    args = ap.parse_args()
    data = Path(args.data)
    lib = json.load(open(data / 'synthons' / 'autogrow4_reaction_libraries' / 'All_Rxns_rxn_library.json'))
    by_group = defaultdict(list)
    with gzip.open(data / 'catalog' / 'zinc15_autogrow4_building_blocks.tsv.gz', 'rt') as fh:
        next(fh)
        for line in fh:
            smiles, zid, groups = line.rstrip('\n').split('\t')
            BB[zid] = smiles
            for g in groups.split(';'):
                by_group[g].append((smiles, zid))
    tasks, names = [], []
    for name, r in sorted(lib.items(), key=lambda kv: kv[1]['RXN_NUM']):
        if r['num_reactants'] != 2:
            continue
        for k, group in enumerate(r['functional_groups']):
            bbs = by_group.get(group, [])
            if args.limit:
                bbs = bbs[: args.limit]
            tasks.append((r['reaction_string'], k, r['example_rxn_reactants'], bbs))
            names.append((name, k))
    with Pool(args.jobs) as pool:
        results = pool.map(synthons_of, tasks, chunksize=1)
    per_reaction = defaultdict(dict)
    for (name, k), syn in zip(names, results):
        per_reaction[name][k] = syn
    for name, slots in per_reaction.items():
        for k in slots:
            # Building blocks that give the same synthon give the same products: keep the first.
            seen = set()
            slots[k] = [(smi, zid) for smi, zid in slots[k] if not (smi in seen or seen.add(smi))]
    check = verify(lib, per_reaction)
    lines, reactions, synthons, products = [], 0, 0, 0
    for name, slots in per_reaction.items():
        if len(slots) != 2 or any(not s for s in slots.values()):
            continue
        reactions += 1
        n = 1
        for k in sorted(slots):
            n *= len(slots[k])
            synthons += len(slots[k])
            lines += [f'{smi}\t{zid}\t{k}\t{name}' for smi, zid in slots[k]]
        products += n
    with gzip.open(args.out, 'wt') as fh:
        fh.write('SMILES\tsynton_id\tsynton#\treaction_id\n')
        fh.write('\n'.join(lines) + '\n')
    print(json.dumps({'reactions': reactions, 'synthons': synthons, 'products': products, 'check': check}))


def verify(lib, per_reaction, per_reaction_pairs=3):
    """Zipped synthon pairs against RDKit RunReactants on their building blocks (first synthons)."""
    agree = total = 0
    invalid, differ = [], []
    params = Chem.MolzipParams()
    params.label = Chem.MolzipLabel.Isotope
    for name, slots in per_reaction.items():
        if len(slots) != 2 or any(not s for s in slots.values()):
            continue
        rxn = AllChem.ReactionFromSmarts(lib[name]['reaction_string'])
        pairs = [(a, b) for a in slots[0][:per_reaction_pairs] for b in slots[1][:1] if '_' not in a[1] + b[1]]
        for (sa, ia), (sb, ib) in pairs:
            total += 1
            try:
                zipped = Chem.molzip(Chem.MolFromSmiles(sa + '.' + sb), params)
                got = Chem.CanonSmiles(Chem.MolToSmiles(zipped))
            except Exception:
                invalid.append(f'{name}: {sa} + {sb}')
                continue
            ra = BB[ia]
            rb = BB[ib]
            want = set()
            for prods in rxn.RunReactants((Chem.MolFromSmiles(ra), Chem.MolFromSmiles(rb))):
                try:
                    want.add(Chem.CanonSmiles(Chem.MolToSmiles(prods[0])))
                except Exception:
                    pass
            agree += got in want
            if got not in want:
                differ.append(f'{name}: {got} not in {sorted(want)[:2]}')
    return {'zipped_pairs_checked': total, 'equal_to_RunReactants': agree, 'invalid': invalid[:5],
            'differ': differ[:5]}


BB = {}


if __name__ == '__main__':
    main()
