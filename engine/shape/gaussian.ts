/**
 * Gaussian-volume shape (Grant & Pickup 1995, first order, as in ROCS and PubChem3D): each atom is a
 * Gaussian p·exp(−α r²) with p = 2.7 and α chosen so that its integral is the atom's van der Waals
 * sphere volume; the overlap volume of two molecules is the sum of the atom-pair overlaps
 * w_ij·exp(−k_ij d²), w_ij = p²(π/(α_i+α_j))^{3/2}, k_ij = α_iα_j/(α_i+α_j). Shape Tanimoto =
 * O_AB/(O_AA+O_BB−O_AB). Radii are Bondi's, as RDKit's PubChem shape code uses, so on the same pose
 * our Tanimoto equals `rdShapeAlign.ScoreMol` up to that code's distance cut-off (~3e-4).
 */
import type { ConformerSet } from './conformers.ts';

export const GAUSSIAN_HEIGHT = 2.7;
const LAMBDA = (4 * Math.PI) / (3 * GAUSSIAN_HEIGHT);
export const KAPPA = Math.PI / Math.pow(LAMBDA, 2 / 3);

/** Bondi radii (Å) by atomic number; other elements fall back to carbon's (documented in README). */
export const BONDI_RADII: Readonly<Record<number, number>> = {
  1: 1.1,
  2: 1.4,
  3: 1.81,
  4: 1.53,
  5: 1.92,
  6: 1.7,
  7: 1.55,
  8: 1.52,
  9: 1.47,
  10: 1.54,
  11: 2.27,
  12: 1.73,
  13: 1.84,
  14: 2.1,
  15: 1.8,
  16: 1.8,
  17: 1.75,
  18: 1.88,
  19: 2.75,
  20: 2.31,
  31: 1.87,
  32: 2.11,
  33: 1.85,
  34: 1.9,
  35: 1.83,
  36: 2.02,
  37: 3.03,
  38: 2.49,
  49: 1.93,
  50: 2.17,
  51: 2.06,
  52: 2.06,
  53: 1.98,
  54: 2.16,
  55: 3.43,
  56: 2.68,
};

/**
 * Tanimoto of overlap volumes ab / (aa + bb − ab), clamped to [0, 1]: rounding puts a self-overlap
 * a few ulps past the self-volumes, and a similarity past 1 must not reach a response.
 */
export function unitTanimoto(ab: number, aa: number, bb: number): number {
  const t = ab / (aa + bb - ab);
  return t > 1 ? 1 : t < 0 ? 0 : t;
}

export const radiusOf = (z: number): number => BONDI_RADII[z] ?? BONDI_RADII[6];

/** The atoms that carry Gaussians: heavy atoms, and hydrogens when asked for. */
export function shapeAtoms(set: ConformerSet, hydrogens: boolean): Uint32Array {
  const idx: number[] = [];
  for (let i = 0; i < set.atomCount; i++) if (hydrogens || set.elements[i] > 1) idx.push(i);
  return Uint32Array.from(idx);
}

export function alphasOf(set: ConformerSet, atoms: Uint32Array): Float64Array {
  return Float64Array.from(atoms, (i) => KAPPA / radiusOf(set.elements[i]) ** 2);
}

/** Per atom-pair constants of two Gaussian sets: weights w and exponents k (row-major, na × nb). */
export interface PairTable {
  na: number;
  nb: number;
  w: Float64Array;
  k: Float64Array;
}

export function pairTable(alphaA: Float64Array, alphaB: Float64Array): PairTable {
  const na = alphaA.length;
  const nb = alphaB.length;
  const w = new Float64Array(na * nb);
  const k = new Float64Array(na * nb);
  const p2 = GAUSSIAN_HEIGHT * GAUSSIAN_HEIGHT;
  for (let i = 0; i < na; i++)
    for (let j = 0; j < nb; j++) {
      const s = alphaA[i] + alphaB[j];
      w[i * nb + j] = p2 * Math.pow(Math.PI / s, 1.5);
      k[i * nb + j] = (alphaA[i] * alphaB[j]) / s;
    }
  return { na, nb, w, k };
}

/**
 * First-order overlap volume of two Gaussian sets at fixed coordinates (flat xyz of the table's atoms).
 * Pairs with k·d² > `cutoff` (contribution below e^−cutoff of the pair's maximum) are skipped; the
 * default keeps every pair, which is the reference value.
 */
export function overlapVolume(t: PairTable, xa: Float64Array, xb: Float64Array, cutoff = Infinity): number {
  const { na, nb, w, k } = t;
  let sum = 0;
  for (let i = 0; i < na; i++) {
    const x = xa[3 * i];
    const y = xa[3 * i + 1];
    const z = xa[3 * i + 2];
    const row = i * nb;
    for (let j = 0; j < nb; j++) {
      const dx = x - xb[3 * j];
      const dy = y - xb[3 * j + 1];
      const dz = z - xb[3 * j + 2];
      const e = k[row + j] * (dx * dx + dy * dy + dz * dz);
      if (e < cutoff) sum += w[row + j] * Math.exp(-e);
    }
  }
  return sum;
}

/** Shape Tanimoto of two conformers of two sets at their stored coordinates (no alignment). */
export function shapeTanimotoAt(
  a: ConformerSet,
  confA: number,
  b: ConformerSet,
  confB: number,
  opts: { hydrogens?: boolean; coordsA?: Float32Array | Float64Array } = {},
): number {
  const h = opts.hydrogens ?? false;
  const atomsA = shapeAtoms(a, h);
  const atomsB = shapeAtoms(b, h);
  const alA = alphasOf(a, atomsA);
  const alB = alphasOf(b, atomsB);
  const xa = gather(opts.coordsA ?? a.coords, confA * a.atomCount, atomsA, opts.coordsA !== undefined);
  const xb = gather(b.coords, confB * b.atomCount, atomsB, false);
  const ab = overlapVolume(pairTable(alA, alB), xa, xb);
  const aa = overlapVolume(pairTable(alA, alA), xa, xa);
  const bb = overlapVolume(pairTable(alB, alB), xb, xb);
  return unitTanimoto(ab, aa, bb);
}

/** Flat xyz (float64) of `atoms` of one conformer; `direct` means `coords` holds that conformer only. */
export function gather(
  coords: Float32Array | Float64Array,
  atomOffset: number,
  atoms: Uint32Array,
  direct: boolean,
): Float64Array {
  const base = direct ? 0 : atomOffset * 3;
  const out = new Float64Array(atoms.length * 3);
  for (let m = 0; m < atoms.length; m++)
    for (let d = 0; d < 3; d++) out[3 * m + d] = coords[base + 3 * atoms[m] + d];
  return out;
}
