/**
 * The ring core of a synthon: the part of it whose chemistry a ring-closing (or double-bond) join
 * can change, written so that synthons with the same core share one RDKit perception of it
 * (ring-zip.ts).
 *
 * The atoms a join can change are the synthon's unstable atoms (synthon-chem.ts `unstableAtoms`:
 * the connectors, the atoms on a path between two connectors, widened to whole ring systems).
 * RDKit's aromaticity of such an atom depends on its element, charge, hydrogens, radicals, its
 * bonds and, for an exocyclic double or triple bond, the partner's element. So the core is the
 * unstable atoms plus their other neighbours (the shell), each shell atom written as a dummy `*`
 * when it hangs by a single bond (only the degree it gives counts), or as its element with its
 * other neighbours turned into hydrogens when it hangs by a multiple bond (valence kept). RDKit's
 * canonical SMILES of that fragment is the key, and its output order the canonical positions.
 * Pure except for the one RDKit parse per synthon.
 */
import { createHash } from 'node:crypto';
import type { MolGraph } from '../chem/graph.ts';
import type { RDKitModule } from '../chem/rdkit.ts';
import { elementSymbol } from '../chem/molblock-3d.ts';
import { graphBytes, graphFromBytes } from './graph-bytes.ts';

/** How a core atom is written. */
export const UNSTABLE = 0;
export const SHELL_DUMMY = 1;
export const SHELL_ATOM = 2;

export interface RingCore {
  /**
   * 128 bits of SHA-256 of the core's canonical SMILES and written states, as 8 UTF-16 units:
   * synthons with equal keys have isomorphic cores (a collision is a 2^-128 chance per pair).
   */
  key: string;
  /** Synthon atom at each canonical core position. */
  atoms: Int32Array;
  /** UNSTABLE, SHELL_DUMMY or SHELL_ATOM per canonical position. */
  kind: Uint8Array;
  /** Hydrogens written on each canonical position (shell atoms: with their lost neighbours). */
  hs: Uint8Array;
}

const BOND_SYMBOL = ['', '-', '=', '#'];

/** One atom in brackets: isotope, element (lower case when aromatic), hydrogens, charge. */
export function atomText(z: number, isotope: number, aromatic: boolean, hs: number, charge: number): string {
  if (z === 0) return isotope > 0 ? `[${isotope}*]` : '*';
  const sym = elementSymbol(z);
  const h = hs === 0 ? '' : hs === 1 ? 'H' : `H${hs}`;
  const c =
    charge === 0 ? '' : charge === 1 ? '+' : charge === -1 ? '-' : charge > 0 ? `+${charge}` : `${charge}`;
  return `[${isotope > 0 ? isotope : ''}${aromatic ? sym.toLowerCase() : sym}${h}${c}]`;
}

/** A bond's SMILES symbol: `:` aromatic, `-` `=` `#` by order; undefined for other bond types. */
export function bondText(order: number, aromatic: boolean): string | undefined {
  if (aromatic) return ':';
  return order >= 1 && order <= 3 ? BOND_SYMBOL[order] : undefined;
}

/**
 * SMILES of a small graph given as atom texts and an edge list (every atom in brackets, every bond
 * written), by depth-first search; `order` is the atom order of the string (RDKit parses atoms in
 * the order they are written). Disconnected parts are joined by '.'.
 */
export function writeSmiles(
  atoms: readonly string[],
  bonds: ReadonlyArray<readonly [number, number, string]>,
): { smiles: string; order: number[] } {
  const n = atoms.length;
  const adj: Array<Array<[number, number]>> = Array.from({ length: n }, () => []);
  bonds.forEach(([x, y], b) => {
    adj[x].push([y, b]);
    adj[y].push([x, b]);
  });
  // Pass 1: the DFS tree; every other bond closes a ring, opened at its earlier atom.
  const disc = new Int32Array(n).fill(-1);
  const treeBond = new Uint8Array(bonds.length);
  const children: number[][] = Array.from({ length: n }, () => []);
  const visit: number[] = [];
  const roots: number[] = [];
  for (let root = 0; root < n; root++) {
    if (disc[root] >= 0) continue;
    roots.push(root);
    const stack = [root];
    disc[root] = visit.length;
    visit.push(root);
    const next = new Int32Array(n);
    while (stack.length) {
      const a = stack[stack.length - 1];
      if (next[a] >= adj[a].length) {
        stack.pop();
        continue;
      }
      const [o, b] = adj[a][next[a]++];
      if (disc[o] >= 0) continue;
      disc[o] = visit.length;
      visit.push(o);
      treeBond[b] = 1;
      children[a].push(o);
      stack.push(o);
    }
  }
  const opens: number[][] = Array.from({ length: n }, () => []);
  const closes: number[][] = Array.from({ length: n }, () => []);
  bonds.forEach(([x, y], b) => {
    if (treeBond[b]) return;
    const [first, last] = disc[x] < disc[y] ? [x, y] : [y, x];
    opens[first].push(b);
    closes[last].push(b);
  });
  // Pass 2: emit in the same order.
  const digitOf = new Map<number, number>();
  const free: number[] = [];
  let nextDigit = 1;
  const digit = (d: number) => (d < 10 ? String(d) : `%${d}`);
  const order: number[] = [];
  const bondTo = (a: number, o: number): string => {
    for (const [p, b] of adj[a]) if (p === o) return bonds[b][2];
    return '';
  };
  const emit = (a: number): string => {
    order.push(a);
    let out = atoms[a];
    for (const b of closes[a]) {
      const d = digitOf.get(b)!;
      out += digit(d);
      free.push(d);
    }
    for (const b of opens[a]) {
      const d = free.length ? free.pop()! : nextDigit++;
      digitOf.set(b, d);
      out += bonds[b][2] + digit(d);
    }
    const kids = children[a];
    kids.forEach((c, k) => {
      const part = bondTo(a, c) + emit(c);
      out += k < kids.length - 1 ? `(${part})` : part;
    });
    return out;
  };
  return { smiles: roots.map(emit).join('.'), order };
}

/**
 * The synthon's ring core around its unstable atoms (synthon-chem.ts `unstableAtoms`), or null
 * when it cannot be written or RDKit cannot read it.
 */
export function ringCore(rd: RDKitModule, g: MolGraph, unstableSet: ReadonlySet<number>): RingCore | null {
  // A connector's atom may give up hydrogens to a join of higher order (zip-valence.ts): it is
  // part of the core even where no ring is closed (a double-bond join).
  const unstable = new Set(unstableSet);
  for (const a of unstableSet)
    if (g.z[a] === 0) for (let k = g.adjStart[a]; k < g.adjStart[a + 1]; k++) unstable.add(g.adjAtom[k]);
  const pos = new Int32Array(g.n).fill(-1);
  const list: number[] = [];
  const kinds: number[] = [];
  const hs: number[] = [];
  for (const a of unstable) {
    pos[a] = list.length;
    list.push(a);
    kinds.push(UNSTABLE);
    hs.push(g.hs[a]);
  }
  const bonds: Array<[number, number, string]> = [];
  for (const a of unstable)
    for (let k = g.adjStart[a]; k < g.adjStart[a + 1]; k++) {
      const o = g.adjAtom[k];
      const b = g.adjBond[k];
      const text = bondText(g.order[b], g.bondAromatic[b] === 1);
      if (text === undefined || g.z[o] === 1) return null;
      if (unstable.has(o)) {
        if (a < o) bonds.push([pos[a], pos[o], text]);
        continue;
      }
      // A shell atom: one per bond, so an atom bonded to two unstable atoms (it would be in their
      // ring system, and so unstable) cannot occur; refuse rather than guess.
      if (pos[o] >= 0 || g.bondAromatic[b]) return null;
      pos[o] = list.length;
      list.push(o);
      const single = g.order[b] === 1;
      kinds.push(single ? SHELL_DUMMY : SHELL_ATOM);
      const lost = g.adjStart[o + 1] - g.adjStart[o] - 1;
      hs.push(single ? 0 : g.hs[o] + lost);
      bonds.push([pos[a], pos[o], text]);
    }
  const texts = list.map((a, k) =>
    kinds[k] === SHELL_DUMMY
      ? '*'
      : atomText(g.z[a], g.isotope[a], kinds[k] === UNSTABLE && g.aromatic[a] === 1, hs[k], g.charge[a]),
  );
  const { smiles, order } = writeSmiles(texts, bonds);
  let mol = null;
  try {
    mol = rd.get_mol(smiles);
    if (!mol?.is_valid()) return null;
    const key = mol.get_smiles();
    const canon = JSON.parse(mol.get_prop('_smilesAtomOutputOrder')) as number[];
    if (!Array.isArray(canon) || canon.length !== list.length) return null;
    // Parsed atom i is written atom order[i]; canonical position k is parsed atom canon[k].
    const written = canon.map((i) => order[i]);
    const atoms = new Int32Array(written.map((w) => list[w]));
    const kind = new Uint8Array(written.map((w) => kinds[w]));
    const h = new Uint8Array(written.map((w) => hs[w]));
    // RDKit's key is of the fragment as it perceives it; the written flags, hydrogens and bonds
    // in canonical order are added, so that two cores written differently never share an entry
    // (at worst two equal cores get two keys).
    const at = new Int32Array(list.length);
    written.forEach((w, k) => (at[w] = k));
    const sig = written.map((w, k) => `${texts[w]}${h[k]}`).join('');
    const bondSig = bonds
      .map(([x, y, t]) => (at[x] < at[y] ? `${at[x]}${t}${at[y]}` : `${at[y]}${t}${at[x]}`))
      .sort()
      .join(',');
    return { key: hashKey(`${key}|${sig}|${bondSig}`), atoms, kind, hs: h };
  } catch {
    return null;
  } finally {
    mol?.delete();
  }
}

function hashKey(text: string): string {
  const d = createHash('sha256').update(text).digest();
  let out = '';
  for (let k = 0; k < 16; k += 2) out += String.fromCharCode(d[k] | (d[k + 1] << 8));
  return out;
}

/**
 * The core and the synthon's graph as bytes for the space's `ring_core` column: [1, m (uint16),
 * key (16 bytes), atoms (uint16 each), kinds, hydrogens, graph (graph-bytes.ts)]; a core that
 * could not be made is [0].
 */
export function encodeRingCore(c: RingCore | null, g: MolGraph): Uint8Array {
  if (!c) return Uint8Array.of(0);
  const m = c.atoms.length;
  const graph = graphBytes(g);
  const out = new Uint8Array(3 + 16 + 4 * m + graph.length);
  out.set(graph, 19 + 4 * m);
  out[0] = 1;
  out[1] = m & 255;
  out[2] = m >> 8;
  for (let k = 0; k < 8; k++) {
    out[3 + 2 * k] = c.key.charCodeAt(k) & 255;
    out[4 + 2 * k] = c.key.charCodeAt(k) >> 8;
  }
  for (let k = 0; k < m; k++) {
    out[19 + 2 * k] = c.atoms[k] & 255;
    out[20 + 2 * k] = c.atoms[k] >> 8;
  }
  out.set(c.kind, 19 + 2 * m);
  out.set(c.hs, 19 + 3 * m);
  return out;
}

/**
 * Reads `encodeRingCore`'s bytes: the core and the synthon's graph, null for a core that could not
 * be made.
 */
export function decodeRingCore(b: Uint8Array): { core: RingCore; g: MolGraph } | null {
  if (b.length < 19 || b[0] !== 1) return null;
  const m = b[1] | (b[2] << 8);
  let key = '';
  for (let k = 0; k < 8; k++) key += String.fromCharCode(b[3 + 2 * k] | (b[4 + 2 * k] << 8));
  const atoms = new Int32Array(m);
  for (let k = 0; k < m; k++) atoms[k] = b[19 + 2 * k] | (b[20 + 2 * k] << 8);
  const g = graphFromBytes(b.subarray(19 + 4 * m));
  if (!g) return null;
  const core = { key, atoms, kind: b.slice(19 + 2 * m, 19 + 3 * m), hs: b.slice(19 + 3 * m, 19 + 4 * m) };
  return { core, g };
}
