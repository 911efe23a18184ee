/**
 * Average molecular weight equal to Python RDKit's `Descriptors.MolWt` (C++ calcAMW, MinimalLib
 * `amw`), implicit hydrogens included. Masses are RDKit's own periodic table, written to
 * data/atomic-weights.json by scripts/reference/make_atomic_weights.py.
 */
import { readFileSync } from 'node:fs';
import type { MolGraph } from './graph.ts';

interface AtomicWeightsFile {
  weights: number[];
  /** Per element: [first mass number, mass of that isotope, of the next one, ...]. */
  isotopes: Record<string, number[]>;
}

const DATA = JSON.parse(
  readFileSync(new URL('./data/atomic-weights.json', import.meta.url), 'utf8'),
) as AtomicWeightsFile;

/** Standard atomic weight by atomic number (0 = dummy atom, weight 0). */
const WEIGHTS = Float64Array.from(DATA.weights);
const H_WEIGHT = WEIGHTS[1];
/** Isotope masses of element z: ISO_MASS[ISO_START[z] + A - ISO_FIRST[z]] for A in [ISO_FIRST[z], ISO_FIRST[z] + ISO_COUNT[z]). */
const ISO_FIRST = new Uint16Array(WEIGHTS.length);
const ISO_COUNT = new Uint16Array(WEIGHTS.length);
const ISO_START = new Uint32Array(WEIGHTS.length);
const ISO_MASS = buildIsotopeTable();

function buildIsotopeTable(): Float64Array {
  const masses: number[] = [];
  for (const [key, run] of Object.entries(DATA.isotopes)) {
    const z = Number(key);
    ISO_FIRST[z] = run[0];
    ISO_COUNT[z] = run.length - 1;
    ISO_START[z] = masses.length;
    for (let k = 1; k < run.length; k++) masses.push(run[k]);
  }
  return Float64Array.from(masses);
}

/**
 * RDKit's Atom::getMass(): the isotope's mass when a mass number is given and the periodic table
 * knows it; an unknown isotope of a real element weighs its mass number, of a dummy atom 0.
 */
export function atomMass(z: number, isotope: number): number {
  if (isotope === 0) return z < WEIGHTS.length ? WEIGHTS[z] : Number.NaN;
  const k = isotope - ISO_FIRST[z];
  if (z < WEIGHTS.length && ISO_COUNT[z] > 0 && k >= 0 && k < ISO_COUNT[z]) return ISO_MASS[ISO_START[z] + k];
  return z === 0 ? 0 : isotope;
}

/**
 * Descriptors.MolWt. Sums in RDKit's order (per atom: its mass, then its hydrogens times H's
 * weight) so the floating-point result is the same double. Null only for an atomic number the
 * table lacks (none exists in RDKit 2026.09).
 */
export function averageMolWeight(g: MolGraph): number | null {
  let res = 0;
  for (let i = 0; i < g.n; i++) {
    const z = g.z[i];
    if (z >= WEIGHTS.length) return null;
    res += g.isotope[i] === 0 ? WEIGHTS[z] : atomMass(z, g.isotope[i]);
    res += g.hs[i] * H_WEIGHT;
  }
  return res;
}
