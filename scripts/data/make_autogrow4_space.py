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
import pickle
from collections import defaultdict
from multiprocessing import Pool
from pathlib import Path

from rdkit import Chem, RDLogger, rdBase
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
    ap.add_argument('--fixture', help='JSON of the checked pairs (test/fixtures/synthons/autogrow4-pairs.json)')
    ap.add_argument('--cache', help='pickle of the per-task synthons: written after the RDKit pass, read if present')
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
    if args.cache and Path(args.cache).exists():
        results = pickle.load(open(args.cache, 'rb'))
    else:
        with Pool(args.jobs) as pool:
            results = pool.map(synthons_of, tasks, chunksize=1)
        if args.cache:
            pickle.dump(results, open(args.cache, 'wb'))
    per_reaction = defaultdict(dict)
    for (name, k), syn in zip(names, results):
        fixed = [(specified_synthon(smi), zid) for smi, zid in syn]
        per_reaction[name][k] = [(smi, zid) for smi, zid in fixed if smi]
    for name, slots in per_reaction.items():
        for k in slots:
            # Building blocks that give the same synthon give the same products: keep the first.
            seen = set()
            slots[k] = [(smi, zid) for smi, zid in slots[k] if not (smi in seen or seen.add(smi))]
    check, rows = verify(lib, per_reaction)
    # A reaction is kept only if zipping its synthons made RunReactants' product for every checked
    # pair (E/Z set by the template across the join is the one thing a synthon cannot carry).
    dropped = sorted(n for n, st in check['reactions'].items() if st['invalid'] or st['differ'])
    # A synthon with a radical atom (the cut left an atom without the hydrogen it had: 2,134 lines,
    # 1,049 SMILES, e.g. [1*][C](C)C(F)(F)F) would make every product a radical; the builder
    # rejects them, so they are left out here (after the check, which never picked one).
    for slots in per_reaction.values():
        for k in slots:
            slots[k] = [(smi, zid) for smi, zid in slots[k] if not radical(smi)]
    lines, reactions, synthons, products = [], 0, 0, 0
    for name, slots in per_reaction.items():
        if len(slots) != 2 or any(not s for s in slots.values()) or name in dropped:
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
    if args.fixture:
        with open(args.fixture, 'w') as fh:
            json.dump({'rdkit': rdBase.rdkitVersion, 'dropped_reactions': dropped, 'pairs': rows}, fh, indent=0)
    check = {k: v for k, v in check.items() if k != 'reactions'}
    print(json.dumps({'reactions': reactions, 'synthons': synthons, 'products': products, 'check': check,
                      'dropped': dropped}))


def radical(smi):
    m = Chem.MolFromSmiles(smi)
    return m is None or any(a.GetNumRadicalElectrons() for a in m.GetAtoms())


def specify_bonds(m):
    """A template ring bond written '@' (benzimidazoles, benzoxazoles) comes out of RunReactants as
    an unspecified bond '~': aromatic between aromatic atoms (as RDKit reads the product), else
    single."""
    for b in m.GetBonds():
        if b.GetBondType() == Chem.BondType.UNSPECIFIED:
            arom = b.GetBeginAtom().GetIsAromatic() and b.GetEndAtom().GetIsAromatic()
            b.SetBondType(Chem.BondType.AROMATIC if arom else Chem.BondType.SINGLE)
            b.SetIsAromatic(arom)
    return m


def specified_synthon(smi):
    """The synthon SMILES with '~' bonds specified (specify_bonds), None if it no longer sanitises."""
    if '~' not in smi:
        return smi
    m = Chem.MolFromSmiles(smi, sanitize=False)
    try:
        m = specify_bonds(Chem.RWMol(m))
        Chem.SanitizeMol(m)
        return Chem.MolToSmiles(m)
    except Exception:
        return None


def canon(mol, isomeric=True):
    """Canonical SMILES of a sanitised copy (RunReactants products are not sanitised)."""
    m = specify_bonds(Chem.RWMol(mol))
    Chem.SanitizeMol(m)
    return Chem.MolToSmiles(m, isomericSmiles=isomeric)


def verify(lib, per_reaction, per_slot=3, seed=7):
    """Zipped synthon pairs against RDKit RunReactants on their building blocks.

    For each reaction, `per_slot` synthons of each slot (the first and random others, building
    blocks with one reacting site only, so the product of the pair is unambiguous) are zipped
    (molzip) and compared with the products RunReactants makes from the two building blocks.
    Returns the summary and the fixture rows (test/engine/synthons/autogrow4-products.test.ts).
    """
    import random

    rng = random.Random(seed)
    summary = {'pairs': 0, 'equal': 0, 'equal_without_stereo': 0, 'invalid': 0, 'differ': 0, 'reactions': {}}
    rows = []
    params = Chem.MolzipParams()
    params.label = Chem.MolzipLabel.Isotope
    for name, slots in per_reaction.items():
        if len(slots) != 2 or any(not s for s in slots.values()):
            continue
        rxn = AllChem.ReactionFromSmarts(lib[name]['reaction_string'])
        picks = []
        for k in (0, 1):
            single = [x for x in slots[k] if not x[1].endswith('_2')]
            picks.append(single[:1] + rng.sample(single[1:], min(per_slot - 1, len(single) - 1)))
        stats = {'pairs': 0, 'equal': 0, 'equal_without_stereo': 0, 'invalid': 0, 'differ': 0}
        for sa, ia in picks[0]:
            for sb, ib in picks[1]:
                stats['pairs'] += 1
                want, want_flat = set(), set()
                for prods in rxn.RunReactants((Chem.MolFromSmiles(BB[ia]), Chem.MolFromSmiles(BB[ib]))):
                    try:
                        want.add(canon(prods[0]))
                        want_flat.add(canon(prods[0], False))
                    except Exception:
                        pass
                try:
                    zipped = Chem.molzip(Chem.MolFromSmiles(sa + '.' + sb), params)
                    got = Chem.CanonSmiles(Chem.MolToSmiles(zipped))
                    got_flat = Chem.CanonSmiles(got, useChiral=0)
                except Exception:
                    got = None
                verdict = (
                    'invalid' if got is None else 'equal' if got in want
                    else 'equal_without_stereo' if got_flat in want_flat else 'differ'
                )
                stats[verdict] += 1
                rows.append({'reaction': name, 'synthons': [[ia, sa], [ib, sb]],
                             'building_blocks': [BB[ia], BB[ib]], 'run_reactants': sorted(want),
                             'molzip': got, 'verdict': verdict})
        summary['reactions'][name] = stats
        for key in stats:
            summary[key] += stats[key]
    return summary, rows


BB = {}


if __name__ == '__main__':
    main()
