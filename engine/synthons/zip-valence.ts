/**
 * Tuples RDKit's molzip would throw on, told before it runs.
 *
 * molzip joins two connectors with one bond: when the two sides write it with different orders, it
 * takes the first connector's order unless that is single, then the other's (seen in RDKit
 * 2026.09: `[1*]N` + `[1*]=C` gives N=C, `[1*]#C` + `[1*]=C` a triple bond). The atom on the lower
 * side then gains valence; with no hydrogen to give up, molzip throws a valence error. The
 * AutoGrow4 Friedlaender reaction's quinoid synthons (`[1*]N=C1…`) meet `[1*]=C…` partners in
 * half of its 549,480 tuples.
 *
 * Why not let it throw: each C++ exception that leaves MinimalLib's WebAssembly leaks its shadow
 * stack. After about 4,500 of them in one process every RDKit call failed, then the heap was
 * corrupted ("memory access out of bounds"). So these tuples are invalid assemblies decided here.
 */
import { graphFromRDKitJson } from '../chem/graph.ts';
import type { RDKitModule } from '../chem/rdkit.ts';

/** Elements whose neutral atom cannot exceed its one valence (C 4, N 3, O 2). */
const FIXED_VALENCE = new Set([6, 7, 8]);
const ORDER: Record<string, number> = { '-': 1, '=': 2, '#': 3, $: 4 };

/**
 * Whether molzip would throw on these synthons (SMILES, connectors `[n*]` or `[*:n]`, joined in
 * this order). Cheap when every paired connector is written with one bond order on both sides
 * (the text says so; then no atom's valence changes); otherwise the synthons are parsed once.
 */
export function zipWouldThrow(rd: RDKitModule, synthonSmiles: readonly string[]): boolean {
  if (!bondsDiffer(synthonSmiles)) return false;
  const ends = new Map<number, Array<{ order: number; z: number; charge: number; hs: number }>>();
  for (const smiles of synthonSmiles) {
    const mol = rd.get_mol(smiles.replace(/\[\*:(\d+)\]/g, '[$1*]'));
    try {
      if (!mol?.is_valid()) return false; // assemble.ts finds it invalid anyway
      const g = graphFromRDKitJson(mol.get_json());
      for (let b = 0; b < g.nb; b++) {
        const [x, y] = [g.bondA[b], g.bondB[b]];
        const dummy = g.z[x] === 0 ? x : g.z[y] === 0 ? y : -1;
        if (dummy < 0 || g.bondAromatic[b]) continue;
        const atom = dummy === x ? y : x;
        const list = ends.get(g.isotope[dummy]) ?? [];
        list.push({ order: g.order[b], z: g.z[atom], charge: g.charge[atom], hs: g.hs[atom] });
        ends.set(g.isotope[dummy], list);
      }
    } finally {
      mol?.delete();
    }
  }
  for (const list of ends.values()) {
    if (list.length !== 2 || list[0].order === list[1].order) continue;
    const order = list[0].order === 1 ? list[1].order : list[0].order;
    for (const end of list) {
      const gain = order - end.order;
      if (gain > 0 && end.charge === 0 && FIXED_VALENCE.has(end.z) && end.hs < gain) return true;
    }
  }
  return false;
}

/** Whether some connector label is written with two different bond orders (SMILES text only). */
function bondsDiffer(synthonSmiles: readonly string[]): boolean {
  const orderOf = new Map<number, number>();
  for (const smiles of synthonSmiles)
    for (const [label, order] of connectorBonds(smiles)) {
      const seen = orderOf.get(label);
      if (seen === undefined) orderOf.set(label, order);
      else if (seen !== order) return true;
    }
  return false;
}

const CONNECTOR = /\[(\d+)\*\]|\[\*:(\d+)\]/g;
const BOND = '-=#$:/\\';

/**
 * Each connector's label and the order of its one bond as written: the bond symbol before it, or
 * after it when it begins the SMILES (or a '.' part); unwritten, `-`, `/`, `\\` are single, `:` is
 * 0 (aromatic). Text it cannot place (a ring digit or branch right after a leading connector)
 * gives order -1, which differs from any partner's: the synthons are then parsed.
 */
export function connectorBonds(smiles: string): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (const m of smiles.matchAll(CONNECTOR)) {
    const i = m.index;
    const before = i > 0 ? smiles[i - 1] : '.';
    let symbol = BOND.includes(before) ? before : '-';
    if (before === '.') {
      const after = smiles[i + m[0].length] ?? '';
      symbol = BOND.includes(after) ? after : /[0-9%(]/.test(after) ? '?' : '-';
    }
    out.push([Number(m[1] ?? m[2]), symbol === '?' ? -1 : symbol === ':' ? 0 : (ORDER[symbol] ?? 1)]);
  }
  return out;
}
