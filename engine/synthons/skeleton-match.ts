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
      return z === undefined || z === 1 ? undefined : { z, length: end + 1 };
    }
    const m = ORGANIC.exec(text);
    const z = m ? symbolZ(m[1]) : undefined;
    return z === undefined ? undefined : { z, length: m![1].length };
  });
}

type AtomReader = (text: string) => { z: number | null; length: number } | undefined;

/** Atoms, branches, ring closures (`1`, `%nn`), bond symbols (ignored: any order) and `.`. */
function readGraph(text: string, atom: AtomReader): SkeletonGraph | undefined {
  const z: Array<number | null> = [];
  const adj: number[][] = [];
  const stack: number[] = [];
  const open = new Map<number, number>();
  let prev = -1;
  for (let i = 0; i < text.length; ) {
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
    } else if ('-=#$:/\\~'.includes(c)) i++;
    else if (c === '%' || (c >= '0' && c <= '9')) {
      const m = /^(\d|%\d\d)/.exec(text.slice(i, i + 3));
      if (!m || prev < 0) return undefined;
      const d = Number(m[1].replace('%', ''));
      const other = open.get(d);
      if (other === undefined) open.set(d, prev);
      else {
        if (other === prev || adj[prev].includes(other)) return undefined;
        adj[prev].push(other);
        adj[other].push(prev);
        open.delete(d);
      }
      i += m[0].length;
    } else {
      const a = atom(text.slice(i, i + 16));
      if (!a) return undefined;
      z.push(a.z);
      adj.push([]);
      const k = z.length - 1;
      if (prev >= 0) {
        adj[prev].push(k);
        adj[k].push(prev);
      }
      prev = k;
      i += a.length;
    }
  }
  return open.size || stack.length ? undefined : { z, adj };
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
