/**
 * espsim's shape similarity on a given pose: 1 − RDKit's `ShapeTanimotoDist` (rdShapeHelpers, the
 * defaults espsim calls it with), re-implemented so our scores are the reference's function and not
 * a proxy of it. The Gaussian overlap (gaussian.ts) stays the alignment objective: it is smooth and
 * cheap to differentiate; this grid score is computed once per refined pose.
 *
 * RDKit's encoding (ShapeUtils.cpp, ShapeEncoder.cpp, UniformGrid3D::setSphereOccupancy): the grid
 * (spacing 0.5 Å) is laid in the canonical frame of the first conformer (heavy-atom centroid and
 * principal axes) over the union box of both conformers' atoms (hydrogens included) padded by 2 Å.
 * Every heavy atom marks the points within 0.8·r_vdW (RDKit's periodic-table radii) with 3, and
 * then 2, 1, 0 in shells of 0.25 Å beyond; a point keeps its largest mark. Tanimoto = Σ min / Σ max
 * of the two grids. Our canonical axes may differ from RDKit's in sign, which shifts the lattice by
 * less than a spacing: scores agree to a few 1e-3, the grid's own discretisation noise.
 */
import { principalFrame } from './frame.ts';

export const GRID_SPACING = 0.5;
const VDW_SCALE = 0.8;
const STEP = 0.25;
const PADDING = 2;

/** RDKit's periodic-table van der Waals radii (`GetRvdw`), Å, by atomic number 1..56. */
const RVDW = [
  0, 1.2, 1.4, 2.2, 1.9, 1.8, 1.7, 1.6, 1.55, 1.5, 1.54, 2.4, 2.2, 2.1, 2.1, 1.95, 1.8, 1.8, 1.88, 2.8, 2.4,
  2.3, 2.15, 2.05, 2.05, 2.05, 2.05, 2.0, 2.0, 2.0, 2.1, 2.1, 2.1, 2.05, 1.9, 1.9, 2.02, 2.9, 2.55, 2.4, 2.3,
  2.15, 2.1, 2.05, 2.05, 2.0, 2.05, 2.1, 2.2, 2.2, 2.25, 2.2, 2.1, 2.1, 2.16, 3.0, 2.7,
];
export const rdkitVdwRadius = (z: number): number => RVDW[z] ?? RVDW[6];

/**
 * Grid shape Tanimoto of two posed conformers: flat xyz of ALL atoms (hydrogens included, they
 * size the box) and their atomic numbers. `a` plays RDKit's `mol1` (espsim's probe).
 */
export function gridShapeTanimoto(
  xa: ArrayLike<number>,
  za: ArrayLike<number>,
  xb: ArrayLike<number>,
  zb: ArrayLike<number>,
): number {
  const heavyA = heavyCoords(xa, za);
  const { center, axes } = principalFrame(heavyA);
  const ta = toCanonical(xa, center, axes);
  const tb = toCanonical(xb, center, axes);
  const lo = [Infinity, Infinity, Infinity];
  const hi = [-Infinity, -Infinity, -Infinity];
  for (const t of [ta, tb])
    for (let m = 0; m < t.length; m += 3)
      for (let d = 0; d < 3; d++) {
        if (t[m + d] < lo[d]) lo[d] = t[m + d];
        if (t[m + d] > hi[d]) hi[d] = t[m + d];
      }
  const n = [0, 0, 0];
  for (let d = 0; d < 3; d++) {
    lo[d] -= PADDING;
    n[d] = Math.floor((hi[d] + PADDING - lo[d]) / GRID_SPACING + 0.5);
  }
  const size = n[0] * n[1] * n[2];
  if (gridA.length < size) {
    gridA = new Uint8Array(size);
    gridB = new Uint8Array(size);
  }
  // The sums grow as the cells are raised (Σ max = ΣA + ΣB − Σ min), so no pass over the padded box
  // (tens of thousands of cells, most of them 0 in both grids) is needed; clearing it is a memset.
  const sums = [0, 0, 0];
  encode(gridA, null, ta, za, lo, n, sums);
  encode(gridB, gridA, tb, zb, lo, n, sums);
  gridA.fill(0, 0, size);
  gridB.fill(0, 0, size);
  const [sumA, sumB, inter] = sums;
  const union = sumA + sumB - inter;
  return union > 0 ? inter / union : 0;
}

// Reused between calls (scoring is single-threaded per engine thread): no allocation per pose. Both
// grids are all zero between calls.
let gridA = new Uint8Array(0);
let gridB = new Uint8Array(0);

function heavyCoords(x: ArrayLike<number>, z: ArrayLike<number>): Float64Array {
  const out: number[] = [];
  for (let i = 0; i < z.length; i++) if (z[i] > 1) out.push(x[3 * i], x[3 * i + 1], x[3 * i + 2]);
  return Float64Array.from(out);
}

function toCanonical(x: ArrayLike<number>, c: Float64Array, a: Float64Array): Float64Array {
  const out = new Float64Array(x.length);
  for (let m = 0; m < x.length; m += 3) {
    const dx = x[m] - c[0];
    const dy = x[m + 1] - c[1];
    const dz = x[m + 2] - c[2];
    for (let r = 0; r < 3; r++) out[m + r] = a[3 * r] * dx + a[3 * r + 1] * dy + a[3 * r + 2] * dz;
  }
  return out;
}

/**
 * UniformGrid3D::setSphereOccupancy for every heavy atom (3 layers, value step 1), with the shell
 * test on squared distances instead of RDKit's sqrt (the same shells). Only the chord of each row
 * inside the third shell is visited: the fourth marks 0, which never raises a cell. Without `other`
 * it encodes the first molecule and adds its raises to sums[0]; with `other` (the first molecule's
 * finished grid) it adds to sums[1] and keeps sums[2] = Σ min(other, grid) up to date.
 */
function encode(
  grid: Uint8Array,
  other: Uint8Array | null,
  x: Float64Array,
  z: ArrayLike<number>,
  lo: number[],
  n: number[],
  sums: number[],
): void {
  const [nx, ny, nz] = n;
  const gStep = STEP / GRID_SPACING;
  let sum = 0;
  let inter = 0;
  for (let at = 0; at < z.length; at++) {
    if (z[at] <= 1) continue;
    const px = (x[3 * at] - lo[0]) / GRID_SPACING;
    const py = (x[3 * at + 1] - lo[1]) / GRID_SPACING;
    const pz = (x[3 * at + 2] - lo[2]) / GRID_SPACING;
    const bgRad = (VDW_SCALE * rdkitVdwRadius(z[at])) / GRID_SPACING;
    const t3 = bgRad * bgRad;
    const t2 = (bgRad + gStep) ** 2;
    const t1 = (bgRad + 2 * gStep) ** 2;
    const gRad = Math.sqrt(t1) + 1e-9; // the rows and planes test exactly below
    const k0 = Math.max(0, Math.ceil(pz - gRad));
    const k1 = Math.min(nz - 1, Math.floor(pz + gRad));
    const j0 = Math.max(0, Math.ceil(py - gRad));
    const j1 = Math.min(ny - 1, Math.floor(py + gRad));
    for (let k = k0; k <= k1; k++) {
      const dz = k - pz;
      const dz2 = dz * dz;
      for (let j = j0; j <= j1; j++) {
        const dy = j - py;
        const dyz = dy * dy + dz2;
        if (dyz >= t1) continue;
        const row = (k * ny + j) * nx;
        // The row's chord inside the third shell, widened by a hair against rounding in the square
        // root: the exact test is the one per cell below.
        const half = Math.sqrt(t1 - dyz) + 1e-9;
        const ia = Math.max(0, Math.ceil(px - half));
        const ib = Math.min(nx - 1, Math.floor(px + half));
        // Branch-free body: which cells an atom raises depends on its neighbours, which no branch
        // predictor guesses. 3 inside 0.8·r, then 2 and 1 in the next two 0.25 Å shells, 0 beyond.
        for (let i = ia; i <= ib; i++) {
          const dx = i - px;
          const d2 = dx * dx + dyz;
          const val = (d2 < t1 ? 1 : 0) + (d2 < t2 ? 1 : 0) + (d2 < t3 ? 1 : 0);
          const old = grid[row + i];
          const v = val > old ? val : old;
          grid[row + i] = v;
          sum += v - old;
          if (other !== null) {
            const a = other[row + i];
            inter += (a < v ? a : v) - (a < old ? a : old);
          }
        }
      }
    }
  }
  if (other === null) sums[0] += sum;
  else {
    sums[1] += sum;
    sums[2] += inter;
  }
}
