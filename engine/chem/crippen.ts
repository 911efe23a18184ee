/**
 * Wildman-Crippen logP and molar refractivity (RDKit `Crippen.MolLogP` / `MolMR`, MinimalLib
 * `CrippenClogP` / `CrippenMR`) and the per-atom Crippen types, from a MolGraph.
 *
 * RDKit types the atoms of the hydrogen-added molecule: each atom takes the first row of the
 * parameter table (data/crippen.json, RDKit's compiled-in table) whose SMARTS matches with that atom
 * as the first pattern atom; the contributions are then summed in atom order, hydrogens last (AddHs
 * appends them in the order of their heavy atoms). Here implicit hydrogens are matched as virtual
 * atoms (smarts-lite HydrogenAtoms); the hydrogens of one atom are alike, so one of them is typed.
 *
 * One RDKit detail is not reproduced: its matcher stops after 1000 matches of a row (uniquify off),
 * so in very large molecules some atoms miss their row. `crippen()` returns null when a row could
 * exceed 1000 matches before all atoms are typed (checked with a degree bound, then by counting).
 * `crippenTypeCounts` does not apply that cap, like models/crippen_types.py.
 */
import { readFileSync } from 'node:fs';
import type { MolGraph } from './graph.ts';
import {
  compileSmarts,
  countEmbeddings,
  expandHydrogens,
  matchesAt,
  rootMayMatch,
  type HydrogenAtoms,
  type Pattern,
} from './smarts-lite.ts';

interface CrippenFile {
  params: [label: string, smarts: string, logp: number, mr: number][];
}
const DATA = JSON.parse(readFileSync(new URL('./data/crippen.json', import.meta.url), 'utf8')) as CrippenFile;

/** Crippen type labels in order of first appearance in the table (C1 .. Me2): the feature order of type counts. */
export const CRIPPEN_LABELS: readonly string[] = [...new Set(DATA.params.map((r) => r[0]))];

interface Row {
  label: number;
  pattern: Pattern;
  logp: number;
  mr: number;
  /** Children of the root pattern atom, and of each other pattern atom: for the match-count bound. */
  rootKids: number;
  innerKids: number[];
}
const ROWS: Row[] = DATA.params.map(([label, smarts, logp, mr]) => {
  const pattern = compileSmarts(smarts);
  const kids = new Array<number>(pattern.m).fill(0);
  for (let k = 1; k < pattern.m; k++) kids[pattern.parent[k]]++;
  return {
    label: CRIPPEN_LABELS.indexOf(label),
    pattern,
    logp,
    mr,
    rootKids: kids[0],
    innerKids: kids.slice(1).filter((c) => c > 0),
  };
});
const NONE = 255;
/** RDKit's SubstructMatch default maxMatches, which Crippen typing runs into. */
const MAX_MATCHES = 1000;

/** Rows that can match an atom of a given element and aromaticity, built on first use per element. */
const candidates: (Uint8Array | undefined)[] = [];
function rowsFor(z: number, arom: number): Uint8Array {
  const key = z * 2 + arom;
  let c = candidates[key];
  if (!c) {
    c = Uint8Array.from(ROWS.flatMap((r, i) => (rootMayMatch(r.pattern, z, arom) ? [i] : [])));
    candidates[key] = c;
  }
  return c;
}

// Per-call scratch, grown as needed: row of each graph atom, and row of each atom's implicit hydrogens.
let atomRow = new Uint8Array(256);
let hRow = new Uint8Array(256);
let hyd: HydrogenAtoms | undefined;
/** The graph atomRow / hRow describe: crippen() and crippenTypeCounts() on one graph type it once. */
let typed: MolGraph | undefined;
let typedLast = -1;
const degreeHist = new Float64Array(64);

function firstRow(g: MolGraph, a: number, z: number, arom: number, h: HydrogenAtoms): number {
  const rows = rowsFor(z, arom);
  for (let j = 0; j < rows.length; j++) if (matchesAt(ROWS[rows[j]].pattern, g, a, h)) return rows[j];
  return NONE;
}

/** Types every atom into atomRow / hRow; returns the last table row RDKit would run (ROWS.length if some atom stays untyped). */
function typeAtoms(g: MolGraph): number {
  if (typed === g) return typedLast;
  const h = (hyd = expandHydrogens(g, hyd));
  if (atomRow.length < g.n) {
    atomRow = new Uint8Array(2 * g.n);
    hRow = new Uint8Array(2 * g.n);
  }
  let last = -1;
  for (let i = 0; i < g.n; i++) {
    const r = firstRow(g, i, g.z[i], g.aromatic[i], h);
    atomRow[i] = r;
    last = Math.max(last, r === NONE ? ROWS.length : r);
    if (g.hs[i] > 0) {
      const rh = firstRow(g, g.n + h.first[i], 1, 0, h);
      hRow[i] = rh;
      last = Math.max(last, rh === NONE ? ROWS.length : rh);
    } else hRow[i] = NONE;
  }
  typed = g;
  typedLast = last;
  return last;
}

function fallingFactorial(d: number, k: number): number {
  let f = 1;
  for (let j = 0; j < k; j++) f *= d - j;
  return f > 0 ? f : 0;
}

/**
 * Whether some row up to `last` has more than 1000 embeddings in the hydrogen-added molecule, so
 * that RDKit's capped matching could type atoms differently. A degree bound (embeddings <= sum over
 * root atoms of ordered choices of neighbours) clears almost every molecule; rows it does not
 * clear are counted.
 */
function exceedsMatchCap(g: MolGraph, h: HydrogenAtoms, last: number): boolean {
  const hist = degreeHist.fill(0);
  let maxDeg = 1;
  for (let i = 0; i < g.n; i++) {
    const d = Math.min(hist.length - 1, g.adjStart[i + 1] - g.adjStart[i] + g.hs[i]);
    hist[d]++;
    if (d > maxDeg) maxDeg = d;
  }
  hist[1] += h.count;
  for (let r = 0; r <= last && r < ROWS.length; r++) {
    const row = ROWS[r];
    let inner = 1;
    for (const k of row.innerKids) inner *= fallingFactorial(maxDeg - 1, k);
    let bound = 0;
    for (let d = 1; d <= maxDeg; d++) bound += hist[d] * fallingFactorial(d, row.rootKids) * inner;
    if (bound > MAX_MATCHES && countEmbeddings(row.pattern, g, MAX_MATCHES + 1, h) > MAX_MATCHES) return true;
  }
  return false;
}

export interface CrippenResult {
  logp: number;
  mr: number;
  /**
   * Type (index into CRIPPEN_LABELS, 255 = none) of each atom of the hydrogen-added molecule in
   * RDKit's order: the graph atoms, then the implicit hydrogens of atom 0, atom 1, ...
   */
  types: Uint8Array;
}

/** Crippen logP, MR and atom types equal to RDKit's, or null when RDKit's 1000-match cap could change them. */
export function crippen(g: MolGraph): CrippenResult | null {
  const last = typeAtoms(g);
  const h = hyd!;
  if (exceedsMatchCap(g, h, last)) return null;
  const types = new Uint8Array(g.n + h.count);
  let logp = 0;
  let mr = 0;
  for (let i = 0; i < g.n; i++) {
    const r = atomRow[i];
    if (r === NONE) {
      types[i] = NONE;
      continue;
    }
    types[i] = ROWS[r].label;
    logp += ROWS[r].logp;
    mr += ROWS[r].mr;
  }
  // RDKit sums over the hydrogen-added molecule: hydrogens after all graph atoms, one by one.
  let k = g.n;
  for (let i = 0; i < g.n; i++) {
    if (g.hs[i] === 0) continue;
    const r = hRow[i];
    for (let j = 0; j < g.hs[i]; j++) {
      if (r === NONE) {
        types[k++] = NONE;
        continue;
      }
      types[k++] = ROWS[r].label;
      logp += ROWS[r].logp;
      mr += ROWS[r].mr;
    }
  }
  return { logp, mr, types };
}

/**
 * Writes (overwriting) at out[offset + t] the number of atoms of the hydrogen-added
 * molecule with Crippen type CRIPPEN_LABELS[t] (implicit hydrogens included, untyped atoms not
 * counted). Equal to models/crippen_types.py crippen_type_counts (no match cap).
 */
export function crippenTypeCounts(g: MolGraph, out: Float32Array, offset: number): void {
  typeAtoms(g);
  out.fill(0, offset, offset + CRIPPEN_LABELS.length);
  for (let i = 0; i < g.n; i++) {
    if (atomRow[i] !== NONE) out[offset + ROWS[atomRow[i]].label]++;
    if (g.hs[i] > 0 && hRow[i] !== NONE) out[offset + ROWS[hRow[i]].label] += g.hs[i];
  }
}
