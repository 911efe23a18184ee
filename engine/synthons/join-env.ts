/**
 * The Morgan codes of a join's cross environments computed from a few numbers per synthon, without
 * any molecule: the build stores them (`join_env`), the similarity search turns them into a tight
 * bound (join-walk.ts). For a two-slot, one-join reaction (join-bits.ts), the product environments
 * that contain the join bond are (A,1), (A,2) and (N,2) for each other neighbour N of the
 * attachment atom A, and the same on the partner's side (B). Their codes (morgan-counts.ts:
 * code_r(x) = fold(combine(r−1, code_{r−1}(x)), sorted (bond, code_{r−1}(neighbour))) need only:
 *   the invariant of A and (bond, invariant) of A's other neighbours   → code1(A) given inv(B);
 *   code1 of each N (it is the same in every product) and (bond, code1) of N's other neighbours.
 * RDKit drops an environment whose bond set repeats an earlier one; the codes here ignore that, so
 * they are a superset of the product's cross codes: exact when nothing is dropped, an upper
 * bound on what the product can share with a query always.
 */
import type { MolGraph } from '../chem/graph.ts';
import { atomInvariants, bondInvariants, combine, hashPair } from '../analysis/embed/morgan-counts.ts';

/** Bond invariant of the join (a single, non-aromatic bond). */
const JOIN_BOND = 1;

export interface JoinEnv {
  /** Invariant (radius-0 code) of the attachment atom A. */
  c0: number;
  /** (bond, invariant) of A's neighbours other than the dummy, in `fold`'s order. */
  nbrs: Array<[number, number]>;
  /**
   * A's other neighbours N: their radius-1 code, the bond to A, (bond, code1) of their other
   * neighbours (in `fold`'s order).
   */
  outer: Array<{ c1: number; bt: number; nbrs: Array<[number, number]> }>;
  /** (bond to A, code1) of every N, in `fold`'s order: the part of (A,2) fixed by this synthon. */
  across: Array<[number, number]>;
}

const byPair = (x: readonly [number, number], y: readonly [number, number]): number =>
  x[0] - y[0] || x[1] - y[1];

function fold(seed: number, pairs: Array<[number, number]>): number {
  pairs.sort(byPair);
  let code = seed;
  for (const [bt, inv] of pairs) code = combine(code, hashPair(bt, inv));
  return code;
}

/**
 * `fold(seed, [...sorted, [bt, inv]])` without building that array: `sorted` is already in fold's
 * order, and the extra pair is hashed at its place in it (equal pairs hash alike, so where among
 * them does not matter). The similarity walk calls this millions of times a query; the arrays and
 * sorts it replaced were a third of the walk's garbage (profile of the 10^9 space, 2026-11-29).
 */
function foldWith(seed: number, sorted: ReadonlyArray<readonly [number, number]>, bt: number, inv: number) {
  let code = seed;
  let placed = false;
  for (let k = 0; k < sorted.length; k++) {
    const p = sorted[k];
    if (!placed && (bt < p[0] || (bt === p[0] && inv < p[1]))) {
      code = combine(code, hashPair(bt, inv));
      placed = true;
    }
    code = combine(code, hashPair(p[0], p[1]));
  }
  return placed ? code : combine(code, hashPair(bt, inv));
}

/**
 * The join environment of a synthon graph with exactly one connector joined by a single,
 * non-aromatic bond, encoded as a short JSON array; '' otherwise.
 */
export function encodeJoinEnv(g: MolGraph): string {
  let dummy = -1;
  for (let a = 0; a < g.n; a++)
    if (g.z[a] === 0) {
      if (dummy >= 0) return '';
      dummy = a;
    }
  if (dummy < 0 || g.adjStart[dummy + 1] - g.adjStart[dummy] !== 1) return '';
  const bInv = bondInvariants(g);
  if (bInv[g.adjBond[g.adjStart[dummy]]] !== JOIN_BOND) return '';
  const A = g.adjAtom[g.adjStart[dummy]];
  const inv = atomInvariants(g);
  const code1 = new Uint32Array(g.n);
  for (let x = 0; x < g.n; x++) {
    const pairs: Array<[number, number]> = [];
    for (let k = g.adjStart[x]; k < g.adjStart[x + 1]; k++)
      pairs.push([bInv[g.adjBond[k]], inv[g.adjAtom[k]]]);
    code1[x] = fold(combine(0, inv[x]), pairs);
  }
  const nbrs: Array<[number, number]> = [];
  const outer: Array<[number, number, number[]]> = [];
  for (let k = g.adjStart[A]; k < g.adjStart[A + 1]; k++) {
    const n = g.adjAtom[k];
    if (n === dummy) continue;
    nbrs.push([bInv[g.adjBond[k]], inv[n]]);
    const far: number[] = [];
    for (let m = g.adjStart[n]; m < g.adjStart[n + 1]; m++)
      if (g.adjAtom[m] !== A) far.push(bInv[g.adjBond[m]], code1[g.adjAtom[m]]);
    outer.push([code1[n], bInv[g.adjBond[k]], far]);
  }
  return JSON.stringify([inv[A], nbrs.flat(), outer]);
}

/** The pairs of a flat list, in `fold`'s order. */
function pairsOf(flat: number[]): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (let k = 0; k + 1 < flat.length; k += 2) {
    // Insertion sort: a few pairs, and Array.prototype.sort's work arrays were most of the
    // garbage of decoding a 10^9 space's join environments.
    const pair: [number, number] = [flat[k], flat[k + 1]];
    let p = out.length;
    out.push(pair);
    for (; p > 0 && byPair(out[p - 1], pair) > 0; p--) out[p] = out[p - 1];
    out[p] = pair;
  }
  return out;
}

export function decodeJoinEnv(s: string): JoinEnv | undefined {
  if (!s) return undefined;
  const [c0, nbrs, outer] = JSON.parse(s) as [number, number[], Array<[number, number, number[]]>];
  const out = outer.map(([c1, bt, far]) => ({ c1, bt, nbrs: pairsOf(far) }));
  return {
    c0,
    nbrs: pairsOf(nbrs),
    outer: out,
    across: pairsOf(out.flatMap((o) => [o.bt, o.c1])),
  };
}

/** code1 of x's attachment atom in a product whose partner attachment atom has invariant `partnerC0`. */
export function joinCode1(x: JoinEnv, partnerC0: number): number {
  return foldWith(combine(0, x.c0), x.nbrs, JOIN_BOND, partnerC0);
}

/**
 * x's cross codes that depend on the partner only through its attachment atom's invariant:
 * (A,1) and every (N,2). `out` receives them; (A,2) also needs the partner's code1 (crossCodes).
 */
export function nearCodes(x: JoinEnv, partnerC0: number, out: number[] = []): number[] {
  const c1A = joinCode1(x, partnerC0);
  out.push(c1A);
  for (const o of x.outer) out.push(foldWith(combine(1, o.c1), o.nbrs, o.bt, c1A));
  return out;
}

/**
 * nearCodes written into `out` (room for 1 + x.outer.length codes) instead of a new array; returns
 * how many. near-bits.ts calls it once per synthon and partner invariant of an opened space.
 */
export function nearCodesInto(x: JoinEnv, partnerC0: number, out: Float64Array): number {
  const c1A = joinCode1(x, partnerC0);
  out[0] = c1A;
  for (let k = 0; k < x.outer.length; k++) {
    const o = x.outer[k];
    out[k + 1] = foldWith(combine(1, o.c1), o.nbrs, o.bt, c1A);
  }
  return x.outer.length + 1;
}

/** Every cross code (both sides) of the product of x and y, a superset of the product's. */
export function crossCodes(x: JoinEnv, y: JoinEnv): number[] {
  const out: number[] = [];
  nearCodes(x, y.c0, out);
  nearCodes(y, x.c0, out);
  out.push(...acrossCodes(x, y, out[0], out[x.outer.length + 1]));
  return out;
}

/**
 * The (A,2) and (B,2) codes of the product of x and y, from the code1s of A and B in it (the first
 * of `nearCodes(x, y.c0)` and of `nearCodes(y, x.c0)`): crossCodes' last two.
 */
export function acrossCodes(x: JoinEnv, y: JoinEnv, c1A: number, c1B: number): [number, number] {
  return [
    foldWith(combine(1, c1A), x.across, JOIN_BOND, c1B),
    foldWith(combine(1, c1B), y.across, JOIN_BOND, c1A),
  ];
}

/** Whether two of A's other neighbours are bonded or share a neighbour (a 3- or 4-ring at A). */
function smallRingAt(x: JoinEnv): boolean {
  if (x.outer.length < 2) return false;
  const seen = new Set<number>();
  for (const o of x.outer) {
    // A neighbour bonded to N or shared with it shows up as a repeated code1 (or N's own code1 in
    // another's list); a coincidence only makes this answer yes, never a wrong no.
    const own = new Set(o.nbrs.map(([, c]) => c));
    for (const c of own) if (seen.has(c)) return true;
    for (const c of own) seen.add(c);
  }
  return x.outer.some((o) => seen.has(o.c1));
}

/**
 * The product's cross codes exactly, or undefined when RDKit's redundant-environment rule could
 * drop one in a way these numbers cannot decide. Its bond set repeats an earlier one only when
 * (checked by the join-bits tests on every product against RDKit):
 * - (N,2) with N bonded to A alone: its bond set is A's bonds = that of (A,1), always dropped;
 * - A (or B) has no other neighbour, both sides' other neighbours are all terminal ((A,2) and
 *   (B,2) cover the same bonds), or a 3- or 4-ring passes through A or B: undecided here.
 */
export function exactCrossCodes(x: JoinEnv, y: JoinEnv): number[] | undefined {
  if (x.nbrs.length === 0 || y.nbrs.length === 0) return undefined;
  const terminal = (e: JoinEnv): boolean => e.outer.every((o) => o.nbrs.length === 0);
  if (terminal(x) && terminal(y)) return undefined;
  if (smallRingAt(x) || smallRingAt(y)) return undefined;
  const all = crossCodes(x, y);
  // Layout of crossCodes: (A,1), (N,2)..., (B,1), (M,2)..., (A,2), (B,2).
  const out: number[] = [all[0]];
  x.outer.forEach((o, k) => o.nbrs.length > 0 && out.push(all[1 + k]));
  const b = 1 + x.outer.length;
  out.push(all[b]);
  y.outer.forEach((o, k) => o.nbrs.length > 0 && out.push(all[b + 1 + k]));
  out.push(all[all.length - 2], all[all.length - 1]);
  return out;
}
