/**
 * A small SMARTS compiler and rooted matcher over MolGraph, for the fixed patterns of RDKit's
 * descriptors (Crippen atom types, NumHBD / NumHBA, rotatable bonds). It follows RDKit's SMARTS
 * semantics for the subset those patterns use: uppercase elements are aliphatic and lowercase
 * aromatic, `A` / `*` / `!C` also match hydrogen atoms, `H` is the total H count (hydrogen neighbours
 * included), `X` the total degree, `D` the degree in the graph, `v` the total valence, `R` / `r` / `x` /
 * `@` use RDKit's ring set, a bond without symbol is single or aromatic, and recursive `$(...)` is
 * matched independently of the enclosing match. The syntax subset is described in smarts-parse.ts.
 *
 * Patterns compile to closures once, at module load of the caller; matching allocates nothing.
 * Implicit hydrogens can be matched as atoms (RDKit's `AddHs` view, which Crippen typing needs) by
 * passing a HydrogenAtoms layout: hydrogen k is atom id `g.n + k`, bonded by a single bond to its parent.
 */
import { type MolGraph, smallestRingSize, totalHs, totalValence } from './graph.ts';
import { type Expr, type ParsedSmarts, parseSmarts } from './smarts-parse.ts';

/** The implicit hydrogens of a graph laid out as extra atoms g.n + k (see expandHydrogens). */
export interface HydrogenAtoms {
  /** Hydrogens of atom i have ids g.n + first[i] .. g.n + first[i + 1] - 1. */
  first: Uint32Array;
  /** The graph atom each hydrogen is bonded to. */
  parent: Uint32Array;
  count: number;
}

type H = HydrogenAtoms | null;
/** Atom test: `a` is a graph atom (< g.n) or, with `h`, a hydrogen id (>= g.n). */
type AtomTest = (g: MolGraph, a: number, h: H) => boolean;
/** Bond test: `b` is a graph bond, or -1 for the single bond of a hydrogen atom of `h`. */
type BondTest = (g: MolGraph, b: number) => boolean;

export interface Pattern {
  smarts: string;
  /** Pattern atoms, in SMARTS order (atom 0 is the root). */
  m: number;
  atoms: AtomTest[];
  /** Parsed atom expressions (for callers that pre-filter by element). */
  atomExprs: Expr[];
  /** Pattern parent of atom k (-1 for the root) and the test of the bond to it. */
  parent: Int32Array;
  bonds: BondTest[];
  /** Ring closures as [atom, earlier atom] with their bond tests. */
  closures: [number, number, BondTest][];
  /** Match state: reused by every call, so a pattern must not be matched re-entrantly. */
  map: Int32Array;
  counting: boolean;
  count: number;
  limit: number;
}

/** Fills (or reuses) a HydrogenAtoms layout for g's implicit hydrogens (`hs`), in atom order like AddHs. */
export function expandHydrogens(g: MolGraph, into?: HydrogenAtoms): HydrogenAtoms {
  let total = 0;
  for (let i = 0; i < g.n; i++) total += g.hs[i];
  const h =
    into && into.first.length > g.n && into.parent.length >= total
      ? into
      : { first: new Uint32Array(g.n + 64), parent: new Uint32Array(total + 256), count: 0 };
  let k = 0;
  for (let i = 0; i < g.n; i++) {
    h.first[i] = k;
    for (let j = 0; j < g.hs[i]; j++) h.parent[k++] = i;
  }
  h.first[g.n] = k;
  h.count = k;
  return h;
}

// ---- atom properties, for graph atoms and expanded hydrogens alike (a hydrogen: z 1, degree 1) ----
const atomicNum = (g: MolGraph, a: number): number => (a < g.n ? g.z[a] : 1);
const aromatic = (g: MolGraph, a: number): number => (a < g.n ? g.aromatic[a] : 0);
const degreeOf = (g: MolGraph, a: number, h: H): number =>
  a < g.n ? g.adjStart[a + 1] - g.adjStart[a] + (h ? g.hs[a] : 0) : 1;
function ringBondCount(g: MolGraph, a: number): number {
  let c = 0;
  for (let k = g.adjStart[a]; k < g.adjStart[a + 1]; k++) if (g.bondRings[g.adjBond[k]] > 0) c++;
  return c;
}

function compileAtom(n: Expr): AtomTest {
  if (n.op !== 'prim') {
    const kids = n.kids!.map(compileAtom);
    if (n.op === 'not') {
      const x = kids[0];
      return (g, a, h) => !x(g, a, h);
    }
    return kids.reduce((x, y) =>
      n.op === 'and' ? (g, a, h) => x(g, a, h) && y(g, a, h) : (g, a, h) => x(g, a, h) || y(g, a, h),
    );
  }
  const v = n.v!;
  switch (n.k) {
    case '*':
      return () => true;
    case '#':
      return (g, a) => atomicNum(g, a) === v;
    case 'Z':
      return (g, a) => atomicNum(g, a) === v && aromatic(g, a) === 0; // element, aliphatic
    case 'z':
      return (g, a) => atomicNum(g, a) === v && aromatic(g, a) === 1; // element, aromatic
    case 'A':
      return (g, a) => aromatic(g, a) === 0;
    case 'a':
      return (g, a) => aromatic(g, a) === 1;
    case 'H':
      return (g, a) => (a < g.n ? totalHs(g, a) : 0) === v;
    case 'D':
      return (g, a, h) => degreeOf(g, a, h) === v;
    case 'X':
      return (g, a) => (a < g.n ? g.adjStart[a + 1] - g.adjStart[a] + g.hs[a] : 1) === v;
    case 'v':
      return (g, a) => (a < g.n ? totalValence(g, a) : 1) === v;
    case '+':
      return (g, a) => (a < g.n ? g.charge[a] : 0) === v;
    case 'R':
      return v < 0 ? (g, a) => a < g.n && g.atomRings[a] > 0 : (g, a) => (a < g.n ? g.atomRings[a] : 0) === v;
    case 'r':
      return v < 0
        ? (g, a) => a < g.n && g.atomRings[a] > 0
        : (g, a) => a < g.n && smallestRingSize(g, a) === v;
    case 'x':
      return v < 0
        ? (g, a) => a < g.n && ringBondCount(g, a) > 0
        : (g, a) => (a < g.n ? ringBondCount(g, a) : 0) === v;
    case '$': {
      const p = compileParsed(n.sub!);
      return (g, a, h) => matchesAt(p, g, a, h);
    }
  }
  throw new Error(`smarts-lite: primitive ${n.k}`);
}

function compileBond(n: Expr): BondTest {
  if (n.op !== 'prim') {
    const kids = n.kids!.map(compileBond);
    if (n.op === 'not') {
      const x = kids[0];
      return (g, b) => !x(g, b);
    }
    return kids.reduce((x, y) =>
      n.op === 'and' ? (g, b) => x(g, b) && y(g, b) : (g, b) => x(g, b) || y(g, b),
    );
  }
  switch (n.k) {
    case '-':
      return (g, b) => b < 0 || (g.bondAromatic[b] === 0 && g.order[b] === 1);
    case '=':
      return (g, b) => b >= 0 && g.bondAromatic[b] === 0 && g.order[b] === 2;
    case '#':
      return (g, b) => b >= 0 && g.bondAromatic[b] === 0 && g.order[b] === 3;
    case ':':
      return (g, b) => b >= 0 && g.bondAromatic[b] === 1;
    case '~':
      return () => true;
    case '@':
      return (g, b) => b >= 0 && g.bondRings[b] > 0;
    case 'default':
      return (g, b) => b < 0 || g.bondAromatic[b] === 1 || g.order[b] === 1;
  }
  throw new Error(`smarts-lite: bond primitive ${n.k}`);
}

/** Compiles a connected SMARTS pattern (see smarts-parse.ts for the syntax); throws outside the subset. */
export function compileSmarts(smarts: string): Pattern {
  return compileParsed(parseSmarts(smarts));
}

function compileParsed(p: ParsedSmarts): Pattern {
  const m = p.atoms.length;
  return {
    smarts: p.smarts,
    m,
    atoms: p.atoms.map(compileAtom),
    atomExprs: p.atoms,
    parent: Int32Array.from(p.parent),
    bonds: p.bonds.map(compileBond),
    closures: p.closures.map(([x, y, e]) => [x, y, compileBond(e)]),
    map: new Int32Array(m),
    counting: false,
    count: 0,
    limit: 0,
  };
}

/** Bond between graph-or-hydrogen atoms x and y as a BondTest argument (-1: hydrogen bond), or -2. */
function bondId(g: MolGraph, x: number, y: number, h: H): number {
  if (x >= g.n || y >= g.n)
    return h && (x >= g.n ? h.parent[x - g.n] === y : h.parent[y - g.n] === x) ? -1 : -2;
  for (let k = g.adjStart[x]; k < g.adjStart[x + 1]; k++) if (g.adjAtom[k] === y) return g.adjBond[k];
  return -2;
}

function tryAtom(p: Pattern, k: number, g: MolGraph, h: H, a: number, b: number): boolean {
  if (!p.bonds[k](g, b)) return false;
  for (let i = 0; i < k; i++) if (p.map[i] === a) return false;
  if (!p.atoms[k](g, a, h)) return false;
  for (let c = 0; c < p.closures.length; c++) {
    const [x, y, test] = p.closures[c];
    if (x !== k) continue;
    const rb = bondId(g, a, p.map[y], h);
    if (rb === -2 || !test(g, rb)) return false;
  }
  p.map[k] = a;
  return extend(p, k + 1, g, h);
}

/** Maps pattern atoms k.. onto neighbours of their mapped parents; true stops the search. */
function extend(p: Pattern, k: number, g: MolGraph, h: H): boolean {
  if (k === p.m) {
    if (!p.counting) return true;
    return ++p.count >= p.limit;
  }
  const par = p.map[p.parent[k]];
  if (par >= g.n) return tryAtom(p, k, g, h, h!.parent[par - g.n], -1);
  for (let j = g.adjStart[par]; j < g.adjStart[par + 1]; j++)
    if (tryAtom(p, k, g, h, g.adjAtom[j], g.adjBond[j])) return true;
  if (h)
    for (let x = h.first[par]; x < h.first[par + 1]; x++) if (tryAtom(p, k, g, h, g.n + x, -1)) return true;
  return false;
}

/** Whether some embedding of `p` maps its first atom to `atom` (a hydrogen id >= g.n needs `h`). */
export function matchesAt(p: Pattern, g: MolGraph, atom: number, h: HydrogenAtoms | null = null): boolean {
  if (!p.atoms[0](g, atom, h)) return false;
  p.map[0] = atom;
  return extend(p, 1, g, h);
}

/**
 * Whether pattern atom 0 can match some atom with atomic number `z` and aromatic flag `arom`
 * (false only when the element alone rules it out): lets callers skip patterns per element.
 */
export function rootMayMatch(p: Pattern, z: number, arom: number): boolean {
  // three-valued: 0 never, 1 always, 2 depends on more than the element
  const tri = (n: Expr): number => {
    if (n.op === 'not') {
      const t = tri(n.kids![0]);
      return t === 2 ? 2 : 1 - t;
    }
    if (n.op !== 'prim') {
      const ts = n.kids!.map(tri);
      const stop = n.op === 'and' ? 0 : 1;
      return ts.includes(stop) ? stop : ts.every((t) => t === 1 - stop) ? 1 - stop : 2;
    }
    switch (n.k) {
      case '*':
        return 1;
      case '#':
        return z === n.v ? 1 : 0;
      case 'Z':
        return z === n.v && arom === 0 ? 1 : 0;
      case 'z':
        return z === n.v && arom === 1 ? 1 : 0;
      case 'A':
        return arom === 0 ? 1 : 0;
      case 'a':
        return arom === 1 ? 1 : 0;
      default:
        return 2;
    }
  };
  return tri(p.atomExprs[0]) !== 0;
}

/** Whether atom `atom` satisfies the expression of pattern atom `k` alone (no neighbours). */
export function atomMatches(
  p: Pattern,
  k: number,
  g: MolGraph,
  atom: number,
  h: HydrogenAtoms | null = null,
): boolean {
  return p.atoms[k](g, atom, h);
}

/** Whether graph bond `b` satisfies the bond test of pattern atom `k` (the bond to its parent). */
export function bondMatches(p: Pattern, k: number, g: MolGraph, b: number): boolean {
  return p.bonds[k](g, b);
}

/**
 * Embeddings of `p` in the graph (every atom order counted, as RDKit's uniquify=false), counting
 * stops at `limit`. With `h`, the expanded hydrogens are atoms too.
 */
export function countEmbeddings(
  p: Pattern,
  g: MolGraph,
  limit: number,
  h: HydrogenAtoms | null = null,
): number {
  p.counting = true;
  p.count = 0;
  p.limit = limit;
  try {
    const atoms = g.n + (h ? h.count : 0);
    for (let a = 0; a < atoms && p.count < limit; a++) matchesAt(p, g, a, h);
  } finally {
    p.counting = false;
  }
  return p.count;
}
