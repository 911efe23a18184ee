/**
 * Rigid-body maximisation of the Gaussian overlap of a probe onto a fixed reference (the objective
 * and its gradient: pose-overlap.ts). BFGS with a backtracking line search minimises
 * f = −O/V + (|q|² − 1)², V = (O_AA + O_BB)/2; the penalty only fixes |q|, to which O is blind, so
 * the Hessian is not singular.
 */
import type { PairTable } from './gaussian.ts';
import { overlapAt, type Workspace } from './pose-overlap.ts';

export {
  OPT_CUTOFF,
  optimizerStats,
  overlapAt,
  quaternionGradient,
  rotationOf,
  workspace,
  type Pose,
  type Workspace,
} from './pose-overlap.ts';

// Initial inverse Hessian: quaternion steps are ~half-angles, so smaller than translation steps (Å).
const H0 = [0.02, 0.02, 0.02, 0.02, 0.5, 0.5, 0.5];

/**
 * Improves pose `start` (modified in place) by at most `maxIter` BFGS iterations; returns its overlap
 * (with the optimisation cut-off). `scale` is V above.
 */
export function optimizePose(
  t: PairTable,
  ref: Float64Array,
  probe: Float64Array,
  start: Float64Array,
  scale: number,
  maxIter: number,
  ws: Workspace,
): number {
  return maximizePose((p, g) => overlapAt(t, ref, probe, p, ws, g), start, scale, maxIter);
}

// Scratch of maximizePose (not re-entrant; each engine thread runs one at a time): the alignment
// makes ~30 calls per molecule pair, whose eight small arrays each were a measurable share of the
// garbage collector's time.
const bfgs = {
  gO: new Float64Array(7),
  grad: new Float64Array(7),
  xn: new Float64Array(7),
  gn: new Float64Array(7),
  dir: new Float64Array(7),
  s: new Float64Array(7),
  y: new Float64Array(7),
  H: new Float64Array(49),
  hy: new Float64Array(7),
};

/**
 * BFGS maximisation of any pose objective `value(p, grad)` (it writes d value/dp into grad) from
 * `start` (modified in place); returns the value at the final pose.
 */
export function maximizePose(
  value: (p: Float64Array, grad: Float64Array) => number,
  start: Float64Array,
  scale: number,
  maxIter: number,
): number {
  const x = start;
  const { gO, grad, xn, gn, dir, s, y, H } = bfgs;
  const resetH = () => {
    H.fill(0);
    for (let i = 0; i < 7; i++) H[8 * i] = H0[i];
  };
  const f = (p: Float64Array, out: Float64Array): number => {
    const o = value(p, gO);
    const n2 = p[0] * p[0] + p[1] * p[1] + p[2] * p[2] + p[3] * p[3] - 1;
    for (let i = 0; i < 7; i++) out[i] = -gO[i] / scale;
    for (let i = 0; i < 4; i++) out[i] += 4 * n2 * p[i];
    lastOverlap = o;
    return -o / scale + n2 * n2;
  };
  let lastOverlap = 0;
  resetH();
  let fx = f(x, grad);
  let best = lastOverlap;
  for (let it = 0; it < maxIter; it++) {
    let slope = 0;
    for (let i = 0; i < 7; i++) {
      let d = 0;
      for (let j = 0; j < 7; j++) d -= H[7 * i + j] * grad[j];
      dir[i] = d;
      slope += d * grad[i];
    }
    if (slope >= 0) {
      // Not a descent direction (curvature information went stale): restart from the gradient.
      resetH();
      slope = 0;
      for (let i = 0; i < 7; i++) slope += (dir[i] = -H0[i] * grad[i]) * grad[i];
    }
    if (-slope < 1e-12) break;
    let step = 1;
    let fn = 0;
    let accepted = false;
    for (let ls = 0; ls < 12; ls++) {
      for (let i = 0; i < 7; i++) xn[i] = x[i] + step * dir[i];
      fn = f(xn, gn);
      if (fn <= fx + 1e-4 * step * slope) {
        accepted = true;
        break;
      }
      step *= 0.5;
    }
    if (!accepted) break;
    let sy = 0;
    for (let i = 0; i < 7; i++) {
      s[i] = xn[i] - x[i];
      y[i] = gn[i] - grad[i];
      sy += s[i] * y[i];
      x[i] = xn[i];
      grad[i] = gn[i];
    }
    const improved = fx - fn;
    fx = fn;
    best = lastOverlap;
    if (sy > 1e-12) bfgsUpdate(H, s, y, sy);
    if (improved < 1e-7) break;
  }
  return best;
}

/** H ← (I − ρ s yᵀ) H (I − ρ y sᵀ) + ρ s sᵀ, ρ = 1/(sᵀy). */
function bfgsUpdate(H: Float64Array, s: Float64Array, y: Float64Array, sy: number): void {
  const rho = 1 / sy;
  const hy = bfgs.hy;
  let yhy = 0;
  for (let i = 0; i < 7; i++) {
    let v = 0;
    for (let j = 0; j < 7; j++) v += H[7 * i + j] * y[j];
    hy[i] = v;
    yhy += y[i] * v;
  }
  for (let i = 0; i < 7; i++)
    for (let j = 0; j < 7; j++)
      H[7 * i + j] += -rho * (hy[i] * s[j] + s[i] * hy[j]) + (rho * rho * yhy + rho) * s[i] * s[j];
}
