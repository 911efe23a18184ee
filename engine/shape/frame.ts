/**
 * Prepared shapes: each conformer's Gaussian atoms moved into its own principal-axes frame (centroid
 * at the origin, axes by decreasing spread, right-handed), so alignment can start from the few
 * orientations that superpose the principal axes, as ROCS and PubChem3D do.
 */
import { conformerCoords, type ConformerSet } from './conformers.ts';
import { espIntegral } from './esp.ts';
import { alphasOf, gather, overlapVolume, pairTable, shapeAtoms } from './gaussian.ts';

export interface FrameConformer {
  /** Gaussian atom coordinates in the frame (flat xyz). */
  xyz: Float64Array;
  center: Float64Array;
  /** Rows are the principal axes: frame = axes · (x − center). */
  axes: Float64Array;
  /** Self overlap volume O_AA. */
  self: number;
}

export interface PreparedShape {
  set: ConformerSet;
  hydrogens: boolean;
  atoms: Uint32Array;
  alpha: Float64Array;
  confs: FrameConformer[];
  /** ⟨A|A⟩ of the ESP per conformer, filled on first use. */
  espSelf: (number | undefined)[];
}

export function prepareShape(set: ConformerSet, hydrogens = false): PreparedShape {
  const atoms = shapeAtoms(set, hydrogens);
  const alpha = alphasOf(set, atoms);
  const self = pairTable(alpha, alpha);
  const confs: FrameConformer[] = [];
  for (let c = 0; c < set.confCount; c++) {
    const raw = gather(set.coords, c * set.atomCount, atoms, false);
    const { center, axes } = principalFrame(raw);
    const xyz = toFrame(raw, center, axes);
    confs.push({ xyz, center, axes, self: overlapVolume(self, xyz, xyz) });
  }
  return { set, hydrogens, atoms, alpha, confs, espSelf: new Array<undefined>(set.confCount) };
}

export function espSelfOf(p: PreparedShape, conf: number): number {
  let v = p.espSelf[conf];
  if (v === undefined) {
    const x = conformerCoords(p.set, conf);
    v = p.espSelf[conf] = espIntegral(x, p.set.charges, x, p.set.charges);
  }
  return v;
}

function toFrame(x: Float64Array, c: Float64Array, a: Float64Array): Float64Array {
  const out = new Float64Array(x.length);
  for (let m = 0; m < x.length; m += 3) {
    const dx = x[m] - c[0];
    const dy = x[m + 1] - c[1];
    const dz = x[m + 2] - c[2];
    for (let r = 0; r < 3; r++) out[m + r] = a[3 * r] * dx + a[3 * r + 1] * dy + a[3 * r + 2] * dz;
  }
  return out;
}

/** Centroid and principal axes (eigenvectors of the covariance, Jacobi), right-handed. */
export function principalFrame(x: Float64Array): { center: Float64Array; axes: Float64Array } {
  const n = x.length / 3;
  const center = new Float64Array(3);
  for (let m = 0; m < x.length; m += 3) for (let d = 0; d < 3; d++) center[d] += x[m + d] / n;
  const cov = new Float64Array(9);
  for (let m = 0; m < x.length; m += 3)
    for (let r = 0; r < 3; r++)
      for (let s = 0; s < 3; s++) cov[3 * r + s] += (x[m + r] - center[r]) * (x[m + s] - center[s]);
  const { values, vectors } = jacobiEigen(cov);
  const order = [0, 1, 2].sort((i, j) => values[j] - values[i]);
  const axes = new Float64Array(9);
  order.forEach((col, row) => {
    for (let d = 0; d < 3; d++) axes[3 * row + d] = vectors[3 * d + col];
  });
  // Third axis = first × second, so the frame is a proper rotation (no mirror images).
  axes[6] = axes[1] * axes[5] - axes[2] * axes[4];
  axes[7] = axes[2] * axes[3] - axes[0] * axes[5];
  axes[8] = axes[0] * axes[4] - axes[1] * axes[3];
  return { center, axes };
}

/** Eigen-decomposition of a symmetric 3×3 matrix; eigenvector k is column k of `vectors`. */
function jacobiEigen(m: Float64Array): { values: number[]; vectors: Float64Array } {
  const a = Float64Array.from(m);
  const v = Float64Array.from([1, 0, 0, 0, 1, 0, 0, 0, 1]);
  for (let sweep = 0; sweep < 50; sweep++) {
    const off = a[1] * a[1] + a[2] * a[2] + a[5] * a[5];
    if (off < 1e-22) break;
    for (const [p, q] of [
      [0, 1],
      [0, 2],
      [1, 2],
    ]) {
      const apq = a[3 * p + q];
      if (Math.abs(apq) < 1e-30) continue;
      const theta = (a[3 * q + q] - a[3 * p + p]) / (2 * apq);
      const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
      const c = 1 / Math.sqrt(t * t + 1);
      const s = t * c;
      for (let k = 0; k < 3; k++) {
        const akp = a[3 * k + p];
        const akq = a[3 * k + q];
        a[3 * k + p] = c * akp - s * akq;
        a[3 * k + q] = s * akp + c * akq;
      }
      for (let k = 0; k < 3; k++) {
        const apk = a[3 * p + k];
        const aqk = a[3 * q + k];
        a[3 * p + k] = c * apk - s * aqk;
        a[3 * q + k] = s * apk + c * aqk;
      }
      for (let k = 0; k < 3; k++) {
        const vkp = v[3 * k + p];
        const vkq = v[3 * k + q];
        v[3 * k + p] = c * vkp - s * vkq;
        v[3 * k + q] = s * vkp + c * vkq;
      }
    }
  }
  return { values: [a[0], a[4], a[8]], vectors: v };
}
