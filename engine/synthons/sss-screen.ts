/**
 * The substructure screen of a synthon: a 1024-bit fingerprint of its element-labelled paths and
 * rings, computed once at build time (column `sss_screen`, docs/synthon-spaces.md), so the space
 * substructure search parses and matches with RDKit only the synthons whose screen holds every
 * bit of the fragment's screen.
 *
 * Why it is a necessary condition: a fragment (fragments.ts) is a skeleton, atoms `[#Z]` (a
 * connector is `[#0]`, which only a synthon's dummy atom matches) or `*`, bonds `~` (any order).
 * A substructure match maps fragment atoms injectively onto synthon atoms of the same atomic number
 * and fragment bonds onto synthon bonds, so every simple path of the fragment (a sequence of
 * elements) is a simple path of the synthon with the same elements, and every simple cycle of the
 * fragment is a simple cycle of the same length and element sequence. Bits are set for paths of
 * up to MAX_PATH_BONDS bonds and cycles of up to MAX_CYCLE atoms, read in a canonical direction
 * (and rotation, for cycles), identically for synthons and fragments; features through a fragment
 * atom that allows several elements (`*`, or hydrogen, which RDKit may keep implicit) are left out.
 * Bond orders and aromaticity are left out: the fragment does not constrain them. Pure: no RDKit.
 */
import type { MolGraph } from '../chem/graph.ts';
import { parseSkeletonSmarts } from './skeleton-match.ts';

export const SCREEN_BITS = 1024;
export const SCREEN_BYTES = SCREEN_BITS / 8;
/** Paths longer than this add no bit (a cap on the per-synthon work, not on correctness). */
const MAX_PATH_BONDS = 5;
const MAX_CYCLE = 8;
/** Fragment atom that no bit may name. */
const ANY = -1;

/** A labelled graph: element per atom (ANY: unconstrained) and neighbour lists. */
interface Labelled {
  z: ArrayLike<number>;
  adj: number[][];
}

/** FNV-1a over a tag and the element sequence, reduced to a bit index. */
function bitOf(tag: number, seq: number[]): number {
  let h = 0x811c9dc5 ^ tag;
  h = Math.imul(h, 0x01000193);
  for (const v of seq) {
    h ^= v + 1;
    h = Math.imul(h, 0x01000193);
    h ^= h >>> 15;
  }
  return (h >>> 0) % SCREEN_BITS;
}

/** Lexicographic comparison of equal-length sequences. */
function less(a: number[], b: number[]): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] < b[i];
  return false;
}

/** The smallest reading of a cycle over its rotations and both directions. */
function canonicalCycle(seq: number[]): number[] {
  const n = seq.length;
  let best: number[] | undefined;
  for (const dir of [1, -1])
    for (let start = 0; start < n; start++) {
      const r = seq.map((_, k) => seq[(((start + dir * k) % n) + n) % n]);
      if (!best || less(r, best)) best = r;
    }
  return best!;
}

/** Sets the screen bits of a labelled graph in `out` (SCREEN_BYTES bytes). */
function setBits(g: Labelled, out: Uint8Array): void {
  const set = (bit: number) => (out[bit >> 3] |= 1 << (bit & 7));
  const n = g.z.length;
  const path: number[] = [];
  const onPath = new Uint8Array(n);
  const seqOf = () => path.map((a) => g.z[a]);
  // Paths: every simple path from every start; both directions are met, the smaller reading counts.
  const walk = (a: number) => {
    path.push(a);
    onPath[a] = 1;
    const seq = seqOf();
    const rev = seq.slice().reverse();
    set(bitOf(path.length, less(rev, seq) ? rev : seq));
    if (path.length <= MAX_PATH_BONDS) for (const b of g.adj[a]) if (!onPath[b] && g.z[b] !== ANY) walk(b);
    path.pop();
    onPath[a] = 0;
  };
  // Cycles: from their lowest atom, through higher atoms only, closing back on the start.
  const cycles = (start: number, a: number) => {
    path.push(a);
    onPath[a] = 1;
    for (const b of g.adj[a]) {
      if (b === start && path.length >= 3) set(bitOf(100 + path.length, canonicalCycle(seqOf())));
      else if (b > start && !onPath[b] && g.z[b] !== ANY && path.length < MAX_CYCLE) cycles(start, b);
    }
    path.pop();
    onPath[a] = 0;
  };
  for (let a = 0; a < n; a++) {
    if (g.z[a] === ANY) continue;
    walk(a);
    cycles(a, a);
  }
}

/** The screen of a synthon's molecule graph (every atom, dummies as element 0). */
export function synthonScreen(g: MolGraph): Uint8Array {
  const adj = Array.from({ length: g.n }, (_, a) =>
    Array.from(g.adjAtom.subarray(g.adjStart[a], g.adjStart[a + 1])),
  );
  const out = new Uint8Array(SCREEN_BYTES);
  setBits({ z: g.z, adj }, out);
  return out;
}

/**
 * The screen of a skeleton SMARTS as fragments.ts writes it (skeleton-match.ts reads it);
 * undefined when the text is not of that form (the caller then does not screen).
 */
export function fragmentScreen(smarts: string): Uint8Array | undefined {
  const g = parseSkeletonSmarts(smarts);
  if (!g) return undefined;
  const out = new Uint8Array(SCREEN_BYTES);
  setBits({ z: g.z.map((z) => (z === null || z === 1 ? ANY : z)), adj: g.adj }, out);
  return out;
}

/**
 * Whether synthon `i` of a slot's screen column may contain the fragment: every fragment bit is
 * set in the synthon's screen. False only when the synthon surely does not contain it.
 */
export function screenPasses(screens: Uint8Array, i: number, fragment: Uint8Array): boolean {
  const base = i * SCREEN_BYTES;
  for (let k = 0; k < SCREEN_BYTES; k++) {
    const f = fragment[k];
    if (f && (screens[base + k] & f) !== f) return false;
  }
  return true;
}
