/**
 * First-stage shape descriptors: USRCAT-style moments (Ballester & Richards 2007; Schreyer & Blundell
 * 2012) from what a conformer set carries (elements and Gasteiger charges, no pharmacophore typing).
 * Four reference points from the heavy atoms (centroid, the atom closest to it, the atom farthest
 * from it, the atom farthest from that one); for each of five atom subsets and each point, the
 * mean, standard deviation and cube root of the skewness of the atoms' distances to the
 * point: 5 × 4 × 3 = 60 floats per conformer. Subsets: all heavy atoms; carbons and halogens
 * (hydrophobic); N and O (polar); heavy atoms with q < −0.25 (acceptor-like); hydrogens with
 * q > 0.15 (donor-like hydrogens). Translation- and rotation-invariant, so no alignment is needed.
 */
import type { ConformerSet } from './conformers.ts';

export const DESCRIPTOR_LENGTH = 60;
const SUBSETS = 5;

function subsetMask(set: ConformerSet): Uint8Array {
  const mask = new Uint8Array(set.atomCount);
  for (let i = 0; i < set.atomCount; i++) {
    const z = set.elements[i];
    const q = set.charges[i];
    let m = 0;
    if (z > 1) m |= 1;
    if (z === 6 || z === 9 || z === 17 || z === 35 || z === 53) m |= 2;
    if (z === 7 || z === 8) m |= 4;
    if (z > 1 && q < -0.25) m |= 8;
    if (z === 1 && q > 0.15) m |= 16;
    mask[i] = m;
  }
  return mask;
}

/** Descriptors of every conformer: Float32Array(confCount × 60). */
export function describeConformers(set: ConformerSet): Float32Array {
  const out = new Float32Array(set.confCount * DESCRIPTOR_LENGTH);
  const mask = subsetMask(set);
  const n = set.atomCount;
  const d = new Float64Array(n);
  for (let c = 0; c < set.confCount; c++) {
    const x = set.coords.subarray(c * n * 3, (c + 1) * n * 3);
    const points = referencePoints(x, mask, n);
    for (let pt = 0; pt < 4; pt++) {
      const [px, py, pz] = points[pt];
      for (let i = 0; i < n; i++) d[i] = Math.hypot(x[3 * i] - px, x[3 * i + 1] - py, x[3 * i + 2] - pz);
      for (let s = 0; s < SUBSETS; s++)
        moments(d, mask, 1 << s, out, c * DESCRIPTOR_LENGTH + (s * 4 + pt) * 3);
    }
  }
  return out;
}

function referencePoints(x: Float32Array, mask: Uint8Array, n: number): number[][] {
  const ctd = [0, 0, 0];
  let heavy = 0;
  for (let i = 0; i < n; i++)
    if (mask[i] & 1) {
      for (let k = 0; k < 3; k++) ctd[k] += x[3 * i + k];
      heavy++;
    }
  for (let k = 0; k < 3; k++) ctd[k] /= heavy;
  const at = (i: number) => [x[3 * i], x[3 * i + 1], x[3 * i + 2]];
  const dist = (i: number, p: number[]) =>
    Math.hypot(x[3 * i] - p[0], x[3 * i + 1] - p[1], x[3 * i + 2] - p[2]);
  let cst = -1;
  let fct = -1;
  for (let i = 0; i < n; i++) {
    if (!(mask[i] & 1)) continue;
    if (cst < 0 || dist(i, ctd) < dist(cst, ctd)) cst = i;
    if (fct < 0 || dist(i, ctd) > dist(fct, ctd)) fct = i;
  }
  const fctP = at(fct);
  let ftf = fct;
  for (let i = 0; i < n; i++) if (mask[i] & 1 && dist(i, fctP) > dist(ftf, fctP)) ftf = i;
  return [ctd, at(cst), fctP, at(ftf)];
}

function moments(d: Float64Array, mask: Uint8Array, bit: number, out: Float32Array, at: number): void {
  let n = 0;
  let sum = 0;
  for (let i = 0; i < d.length; i++)
    if (mask[i] & bit) {
      n++;
      sum += d[i];
    }
  if (n === 0) return; // an empty subset stays 0, which the score compares like any value
  const mean = sum / n;
  let m2 = 0;
  let m3 = 0;
  for (let i = 0; i < d.length; i++)
    if (mask[i] & bit) {
      const e = d[i] - mean;
      m2 += e * e;
      m3 += e * e * e;
    }
  const sd = Math.sqrt(m2 / n);
  out[at] = mean;
  out[at + 1] = sd;
  // Cube root of the skewness, as RDKit's GetUSR (0 when every distance is the same).
  out[at + 2] = sd > 0 ? Math.cbrt(m3 / n) / sd : 0;
}

/** USR similarity of two descriptor vectors: 1 / (1 + mean |a − b|), in (0, 1]. */
export function usrSimilarity(a: Float32Array, ai: number, b: Float32Array, bi: number): number {
  let s = 0;
  for (let k = 0; k < DESCRIPTOR_LENGTH; k++) s += Math.abs(a[ai + k] - b[bi + k]);
  return 1 / (1 + s / DESCRIPTOR_LENGTH);
}
