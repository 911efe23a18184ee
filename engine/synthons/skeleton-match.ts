/**
 * Fragment-in-synthon matching without RDKit. A fragment (fragments.ts) is a skeleton: atoms by
 * element (`[#Z]`, `[#0]` a connector) or any atom (`*`), bonds of any order. Whether a synthon
 * contains it depends only on the synthon's atoms' elements and its bonds, which its SMILES text
 * states directly (every heavy atom and dummy is written; sanitisation adds or removes none and
 * changes no bond's existence). So the match RDKit would make after parsing the synthon is decided
 * here on the text's graph: the same answer, at a fraction of the cost of an RDKit parse.
 *
 * The text graph equals RDKit's molecule graph unless the SMILES writes hydrogen atoms (RDKit
 * removes most of them, keeps some): such a SMILES, or any syntax this reader does not know, gives
 * undefined and the caller asks RDKit. A fragment naming hydrogen (`[#1]`) likewise.
 */
import { symbolZ } from './element-counts.ts';

/** A skeleton graph: element per atom (null: any atom) and neighbour lists. */
export interface SkeletonGraph {
  z: Array<number | null>;
  adj: number[][];
  /** Mass number written in a bracket atom (a connector's label), else 0. */
  iso: number[];
  /** 1 where the atom has a bond written `=`, `#`, `$` or `:`. */
  notSingle: Uint8Array;
}

/** Reads a skeleton SMARTS as fragments.ts writes it; undefined for any other text. */
export function parseSkeletonSmarts(smarts: string): SkeletonGraph | undefined {
  return readGraph(smarts, (text) => {
    if (text[0] === '*') return { z: null, length: 1 };
    const m = /^\[#(\d+)\]/.exec(text);
    return m ? { z: Number(m[1]), length: m[0].length } : undefined;
  });
}

const ORGANIC = /^(Cl|Br|[BCNOPSFI]|[bcnops]|\*)/;
const BRACKET = /^\[\d*(\*|[A-Z][a-z]?|se|as|te|[cnospb])/;

/** The graph of a SMILES's atoms and bonds; undefined when it writes H atoms or unknown syntax. */
export function smilesSkeleton(smiles: string): SkeletonGraph | undefined {
  return readGraph(smiles, (text) => {
    if (text[0] === '[') {
      const end = text.indexOf(']');
      const m = BRACKET.exec(text);
      if (end < 0 || !m) return undefined;
      const z = symbolZ(m[1]);
      const iso = Number(/^\[(\d*)/.exec(text)![1] || 0);
      return z === undefined || z === 1 ? undefined : { z, length: end + 1, iso };
    }
    const m = ORGANIC.exec(text);
    const z = m ? symbolZ(m[1]) : undefined;
    return z === undefined ? undefined : { z, length: m![1].length };
  });
}

type AtomReader = (text: string) => { z: number | null; length: number; iso?: number } | undefined;

/** Atoms, branches, ring closures (`1`, `%nn`), bond symbols (ignored: any order) and `.`. */
function readGraph(text: string, atom: AtomReader): SkeletonGraph | undefined {
  const z: Array<number | null> = [];
  const adj: number[][] = [];
  const iso: number[] = [];
  const multiple: number[] = [];
  const stack: number[] = [];
  const open = new Map<number, { atom: number; bond: string }>();
  let prev = -1;
  let bondSymbol = '';
  const bond = (a: number, b: number, symbol: string) => {
    adj[a].push(b);
    adj[b].push(a);
    if ('=#$:'.includes(symbol) && symbol) multiple.push(a, b);
  };
  for (let i = 0; i < text.length;) {
    const c = text[i];
    if (c === '(') {
      stack.push(prev);
      i++;
    } else if (c === ')') {
      if (!stack.length) return undefined;
      prev = stack.pop()!;
      i++;
    } else if (c === '.') {
      prev = -1;
      i++;
    } else if ('-=#$:/\\~'.includes(c)) {
      bondSymbol = c;
      i++;
    } else if (c === '%' || (c >= '0' && c <= '9')) {
      const m = /^(\d|%\d\d)/.exec(text.slice(i, i + 3));
      if (!m || prev < 0) return undefined;
      const d = Number(m[1].replace('%', ''));
      const other = open.get(d);
      if (other === undefined) open.set(d, { atom: prev, bond: bondSymbol });
      else {
        if (other.atom === prev || adj[prev].includes(other.atom)) return undefined;
        bond(prev, other.atom, bondSymbol || other.bond);
        open.delete(d);
      }
      bondSymbol = '';
      i += m[0].length;
    } else {
      const a = atom(text.slice(i, i + 16));
      if (!a) return undefined;
      z.push(a.z);
      adj.push([]);
      iso.push(a.iso ?? 0);
      const k = z.length - 1;
      if (prev >= 0) bond(prev, k, bondSymbol);
      bondSymbol = '';
      prev = k;
      i += a.length;
    }
  }
  if (open.size || stack.length) return undefined;
  const notSingle = new Uint8Array(z.length);
  for (const a of multiple) notSingle[a] = 1;
  return { z, adj, iso, notSingle };
}

/**
 * A synthon's connector labels (one per dummy atom, as its isotope) and whether every connector
 * bond is single and not aromatic (graph-zip.ts `synthonGraph`'s `simple`), read from the SMILES
 * text; undefined where the text cannot say (H atoms, unknown syntax, a dummy with other than one
 * bond). A dummy with one bond is in no ring, so its bond is aromatic only if written `:`, and
 * single unless written `=`, `#`, `$` or `:` (RDKit's parser makes an unwritten bond single
 * unless both atoms are aromatic, which a dummy is not outside a ring).
 */
export function smilesConnectors(smiles: string): { labels: number[]; simple: boolean } | undefined {
  const g = smilesSkeleton(smiles);
  if (!g) return undefined;
  const labels: number[] = [];
  let simple = true;
  for (let a = 0; a < g.z.length; a++)
    if (g.z[a] === 0) {
      if (g.adj[a].length !== 1) return undefined;
      labels.push(g.iso[a]);
      if (g.notSingle[a]) simple = false;
    }
  return { labels, simple };
}

/**
 * Whether `target` contains `fragment` (a subgraph monomorphism, as RDKit's substructure match:
 * distinct target atoms, fragment bonds onto target bonds, extra target bonds allowed).
 */
export function containsSkeleton(fragment: SkeletonGraph, target: SkeletonGraph): boolean {
  const nf = fragment.z.length;
  if (nf > target.z.length) return false;
  // Visit fragment atoms so that each (but a component's first) has an earlier neighbour.
  const order: number[] = [];
  const parent: number[] = [];
  const seen = new Uint8Array(nf);
  for (let r = 0; r < nf; r++) {
    if (seen[r]) continue;
    seen[r] = 1;
    order.push(r);
    parent.push(-1);
    for (let q = order.length - 1; q < order.length; q++)
      for (const b of fragment.adj[order[q]])
        if (!seen[b]) {
          seen[b] = 1;
          order.push(b);
          parent.push(order[q]);
        }
  }
  const map = new Int32Array(nf).fill(-1);
  const used = new Uint8Array(target.z.length);
  const all = target.z.map((_, i) => i);
  const place = (k: number): boolean => {
    if (k === nf) return true;
    const a = order[k];
    const za = fragment.z[a];
    const candidates = parent[k] >= 0 ? target.adj[map[parent[k]]] : all;
    for (const t of candidates) {
      if (used[t] || (za !== null && target.z[t] !== za) || target.adj[t].length < fragment.adj[a].length)
        continue;
      let ok = true;
      for (const b of fragment.adj[a])
        if (map[b] >= 0 && !target.adj[t].includes(map[b])) {
          ok = false;
          break;
        }
      if (!ok) continue;
      map[a] = t;
      used[t] = 1;
      if (place(k + 1)) return true;
      map[a] = -1;
      used[t] = 0;
    }
    return false;
  };
  return place(0);
}
