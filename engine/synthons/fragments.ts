/**
 * Splitting a substructure query across a reaction's slots (the fragment step of RDKit's
 * SynthonSpaceSearch), made a proof rather than a heuristic.
 *
 * Take any product P = zip(s_1..s_n) that the query Q matches. Every product atom comes from
 * exactly one synthon, so the match partitions Q's atoms by slot; a query bond whose ends lie in
 * different slots maps onto a bond the zip formed (one per paired connector label), and every
 * other query bond lies inside one synthon. So for some set C of at most L query bonds (L = the
 * reaction's paired labels) and some assignment of the components of Q − C to slots, each slot's
 * synthon contains its components with one connector dummy per cut bond. We test a relaxation of
 * that — atoms by element only (or any atom when the query leaves the element open), bonds of any
 * order — which zipping never changes, so every synthon that can take part passes. Candidates are
 * the union over splits of the product of the passing synthon sets, and each is then assembled and
 * verified against the whole query, so the result equals brute force over the enumeration.
 */
import type { RDKitModule, RDKitMol } from '../chem/rdkit.ts';
import type { ReactionInfo } from './format.ts';

/** A query graph: per atom its element (null: any atom, dummies included), and its bonds. */
export interface Skeleton {
  z: Array<number | null>;
  bonds: Array<[number, number]>;
}

interface QueryNode {
  descr?: string;
  val?: number;
  negated?: boolean;
  children?: QueryNode[];
}

/** The element a SMARTS atom query pins down, or null when it allows several (or negates). */
function elementOf(q: QueryNode | undefined): number | null {
  if (!q || q.negated) return null;
  if ((q.descr === 'AtomType' || q.descr === 'AtomAtomicNum') && typeof q.val === 'number') {
    const z = q.val % 1000; // AtomType stores aromatic elements as 1000 + Z
    return z > 0 ? z : null;
  }
  if (q.descr === 'AtomAnd') for (const c of q.children ?? []) if (elementOf(c) !== null) return elementOf(c);
  return null;
}

/** The skeleton of a parsed query (SMARTS query atoms or plain SMILES atoms). */
export function querySkeleton(mol: RDKitMol): Skeleton {
  const doc = JSON.parse(mol.get_json()) as {
    defaults: { atom: { z: number } };
    molecules: Array<{
      atoms: Array<{ z?: number }>;
      bonds?: Array<{ atoms: [number, number] }>;
      extensions?: Array<{ name: string; atomQueries?: QueryNode[] }>;
    }>;
  };
  const m = doc.molecules[0];
  const queries = m.extensions?.find((e) => e.name === 'rdkitQueries')?.atomQueries;
  const z = m.atoms.map((a, i) => {
    if (queries) return elementOf(queries[i]);
    const v = a.z ?? doc.defaults.atom.z;
    return v > 0 ? v : null; // a dummy in a SMILES query matches any atom
  });
  return { z, bonds: (m.bonds ?? []).map((b) => b.atoms) };
}

/** SMARTS of a skeleton: atoms `[#Z]` or `*`, bonds `~` (a z of 0 is a connector dummy). */
export function skeletonSmarts(z: Array<number | null>, bonds: Array<[number, number]>): string {
  const adj = z.map(() => [] as number[]);
  for (const [a, b] of bonds) {
    adj[a].push(b);
    adj[b].push(a);
  }
  // Pass 1: a DFS classifies edges; an edge to an already visited atom closes a ring.
  const order = new Array<number>(z.length).fill(-1);
  const children = z.map(() => [] as number[]);
  const opens = z.map(() => [] as number[]); // ring bonds opened at an atom: partner atoms
  const closes = z.map(() => [] as number[]);
  let t = 0;
  const roots: number[] = [];
  const dfs = (i: number, from: number) => {
    order[i] = t++;
    for (const j of adj[i]) {
      if (j === from) continue;
      if (order[j] < 0) {
        children[i].push(j);
        dfs(j, i);
      } else if (order[j] < order[i] && !opens[j].includes(i)) {
        opens[j].push(i);
        closes[i].push(j);
      }
    }
  };
  for (let i = 0; i < z.length; i++) {
    if (order[i] >= 0) continue;
    roots.push(i);
    dfs(i, -1);
  }
  // Pass 2: write, allocating ring digits in writing order.
  const digit = new Map<string, number>();
  const free: number[] = [];
  let next = 1;
  const ring = (n: number) => (n < 10 ? `${n}` : `%${n}`);
  const write = (i: number): string => {
    let s = z[i] === null ? '*' : `[#${z[i]}]`;
    for (const j of closes[i]) {
      const n = digit.get(`${j}-${i}`)!;
      free.push(n);
      s += `~${ring(n)}`;
    }
    for (const j of opens[i]) {
      const n = free.length ? free.pop()! : next++;
      digit.set(`${i}-${j}`, n);
      s += `~${ring(n)}`;
    }
    const kids = children[i].map((j) => `~${write(j)}`);
    return s + kids.map((b, k) => (k < kids.length - 1 ? `(${b})` : b)).join('');
  };
  return roots.map(write).join('.');
}

export interface SplitLimits {
  /** Cut-bond sets tried per reaction. */
  maxCutSets: number;
  /** Slot assignments (splits) kept per reaction. */
  maxSplits: number;
}
export const DEFAULT_SPLIT_LIMITS: SplitLimits = { maxCutSets: 20_000, maxSplits: 20_000 };

/** Per slot the SMARTS its synthon must contain, or null when the slot holds none of the query. */
export type Split = Array<string | null>;

/** Labels shared by each pair of slots (each is one bond the zip forms between them). */
function pairCapacity(info: ReactionInfo): number[][] {
  const n = info.slots.length;
  const cap = info.slots.map(() => new Array<number>(n).fill(0));
  for (let a = 0; a < n; a++)
    for (let b = a + 1; b < n; b++) {
      const shared = info.slots[a].connectors.filter((l) => info.slots[b].connectors.includes(l)).length;
      cap[a][b] = cap[b][a] = shared;
    }
  return cap;
}

function* subsets(n: number, k: number, start = 0, acc: number[] = []): Generator<number[]> {
  if (acc.length === k) {
    yield acc.slice();
    return;
  }
  for (let i = start; i <= n - (k - acc.length); i++) {
    acc.push(i);
    yield* subsets(n, k, i + 1, acc);
    acc.pop();
  }
}

/**
 * Every split of the query over the reaction's slots that a match could induce, deduplicated;
 * undefined when the limits are exceeded (the caller then scans the reaction instead).
 */
export function splitQuery(
  q: Skeleton,
  info: ReactionInfo,
  limits = DEFAULT_SPLIT_LIMITS,
): Split[] | undefined {
  const n = info.slots.length;
  const cap = pairCapacity(info);
  const maxCuts = Math.min(q.bonds.length, cap.flat().reduce((a, b) => a + b, 0) / 2);
  const out = new Map<string, Split>();
  let cutSets = 0;
  for (let k = 0; k <= maxCuts; k++)
    for (const cut of subsets(q.bonds.length, k)) {
      if (++cutSets > limits.maxCutSets) return undefined;
      const cutSet = new Set(cut);
      // Components of Q − C (union-find).
      const parent = q.z.map((_, i) => i);
      const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i])));
      q.bonds.forEach(([a, b], i) => {
        if (!cutSet.has(i)) parent[find(a)] = find(b);
      });
      const roots = [...new Set(q.z.map((_, i) => find(i)))];
      const compOf = new Map(roots.map((r, i) => [r, i]));
      const comp = q.z.map((_, i) => compOf.get(find(i))!);
      // A cut bond inside one component cannot be a formed bond of this match.
      if (cut.some((b) => comp[q.bonds[b][0]] === comp[q.bonds[b][1]])) continue;
      const assign = new Array<number>(roots.length).fill(0);
      for (;;) {
        if (fits(q, cut, comp, assign, cap)) {
          const split = slotFragments(q, cut, comp, assign, n);
          out.set(split.map((s) => s ?? '').join('\n'), split);
          if (out.size > limits.maxSplits) return undefined;
        }
        let c = 0;
        while (c < assign.length && ++assign[c] === n) assign[c++] = 0;
        if (c === assign.length) break;
      }
    }
  return [...out.values()];
}

/** Cut bonds join different slots, no more per slot pair than the labels they share. */
function fits(q: Skeleton, cut: number[], comp: number[], assign: number[], cap: number[][]): boolean {
  const used = new Map<number, number>();
  for (const b of cut) {
    const sa = assign[comp[q.bonds[b][0]]];
    const sb = assign[comp[q.bonds[b][1]]];
    if (sa === sb) return false;
    const key = Math.min(sa, sb) * 8 + Math.max(sa, sb);
    const u = (used.get(key) ?? 0) + 1;
    if (u > cap[sa][sb]) return false;
    used.set(key, u);
  }
  return true;
}

function slotFragments(q: Skeleton, cut: number[], comp: number[], assign: number[], n: number): Split {
  const split: Split = [];
  const cutSet = new Set(cut);
  for (let s = 0; s < n; s++) {
    const atoms = q.z.map((_, i) => i).filter((i) => assign[comp[i]] === s);
    if (!atoms.length) {
      split.push(null);
      continue;
    }
    const local = new Map(atoms.map((a, i) => [a, i]));
    const z: Array<number | null> = atoms.map((a) => q.z[a]);
    const bonds: Array<[number, number]> = [];
    q.bonds.forEach(([a, b], i) => {
      if (!cutSet.has(i) && local.has(a) && local.has(b)) bonds.push([local.get(a)!, local.get(b)!]);
      else if (cutSet.has(i) && (local.has(a) || local.has(b))) {
        z.push(0); // the connector dummy standing for the partner synthon
        bonds.push([local.get(local.has(a) ? a : b)!, z.length - 1]);
      }
    });
    split.push(skeletonSmarts(z, bonds));
  }
  return split;
}

/** Parses a skeleton SMARTS (always valid by construction). */
export function skeletonQuery(rd: RDKitModule, smarts: string): RDKitMol {
  const q = rd.get_qmol(smarts);
  if (!q?.is_valid()) throw new Error(`skeleton SMARTS did not parse: ${smarts}`);
  return q;
}
