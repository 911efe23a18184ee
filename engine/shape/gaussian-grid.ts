/**
 * The first stage that recalls: each conformer's Gaussian density (heavy atoms, widened: exponent
 * α/2) sampled on a 9 × 5 × 3 grid of 2 Å in its principal-axes frame, 135 floats. Two molecules
 * compare by the Tanimoto of their grid vectors, best over conformer pairs and the 4 sign flips of
 * the axes (the starts of alignShapes), so it approximates the Gaussian shape Tanimoto at the
 * alignment's starting poses without any optimisation (a zero pads each vector to 136 floats).
 * Recall of the exact top 30 on DUD-E molecules: bench/shape/README.md.
 */
import type { PreparedShape } from './frame.ts';
import type { DescriptorTable, Shortlist } from './scan.ts';
import { topK } from './scan.ts';

const [NX, NY, NZ] = [9, 5, 3];
const SPACING = 2;
const WIDEN = 0.5;
/** Exponent (Å⁻²) of the charge Gaussians of the ESP-side grid. */
const CHARGE_BETA = 0.1;
const GRID_POINTS = NX * NY * NZ;
/** Floats per conformer: the 135 grid values and one zero, so a vector is 34 f32x4 lanes (wasm-grid.ts). */
export const GRID_LENGTH = GRID_POINTS + 1;

const POINTS: number[][] = [];
for (let i = 0; i < NX; i++)
  for (let j = 0; j < NY; j++)
    for (let k = 0; k < NZ; k++)
      POINTS.push([(i - (NX - 1) / 2) * SPACING, (j - (NY - 1) / 2) * SPACING, (k - (NZ - 1) / 2) * SPACING]);

/** Grid index maps of the four proper sign flips of the axes (identity first). */
const FLIPS: Uint16Array[] = [
  [1, 1, 1],
  [1, -1, -1],
  [-1, 1, -1],
  [-1, -1, 1],
].map(([sx, sy, sz]) =>
  Uint16Array.from({ length: GRID_LENGTH }, (_, idx) => {
    if (idx === GRID_POINTS) return idx; // the padding stays in place
    const i = Math.floor(idx / (NY * NZ));
    const j = Math.floor(idx / NZ) % NY;
    const k = idx % NZ;
    return ((sx > 0 ? i : NX - 1 - i) * NY + (sy > 0 ? j : NY - 1 - j)) * NZ + (sz > 0 ? k : NZ - 1 - k);
  }),
);

/** Grid descriptors of every conformer of a prepared shape: Float32Array(confCount × 135). */
export function gridDescriptors(p: PreparedShape): Float32Array {
  const out = new Float32Array(p.confs.length * GRID_LENGTH);
  p.confs.forEach((c, ci) => {
    POINTS.forEach(([gx, gy, gz], gi) => {
      let s = 0;
      for (let a = 0; a < p.alpha.length; a++) {
        const dx = c.xyz[3 * a] - gx;
        const dy = c.xyz[3 * a + 1] - gy;
        const dz = c.xyz[3 * a + 2] - gz;
        s += Math.exp(-p.alpha[a] * WIDEN * (dx * dx + dy * dy + dz * dz));
      }
      out[ci * GRID_LENGTH + gi] = s;
    });
  });
  return out;
}

/**
 * Weight of the net charge in a charge grid vector's last (padding) slot. espsim's Coulomb kernel
 * has a term of range ~28 Å (exponent −0.0013 Å⁻², the largest coefficient) that the 16 × 8 × 4 Å
 * grid cannot hold: across it the potentials overlap as the product of the net charges. With it,
 * the pose-aware stage keeps 0.73 instead of 0.68 of the exact ESP top 30 within 300 rows (8
 * queries on chembl_drugs; the gain stops growing beyond a weight of 3: bench/shape/README.md).
 */
const NET_CHARGE_WEIGHT = 10;

/**
 * ESP-side first stage: the Gasteiger charges (all atoms) as Gaussians of exponent 0.1 Å⁻² on the
 * same grid and frame, and the net charge (weighted) in the padding slot, which the flips leave in
 * place; rows compare by the cosine of these vectors (a Carbo index of smoothed charge densities),
 * best over conformer pairs and flips. It recalls the exact ESP ranking where the shape grid does
 * not (bench/shape/README.md).
 */
export function chargeGridDescriptors(p: PreparedShape): Float32Array {
  const { set } = p;
  const n = set.atomCount;
  const out = new Float32Array(p.confs.length * GRID_LENGTH);
  const f = [0, 0, 0];
  let net = 0;
  for (let a = 0; a < n; a++) net += set.charges[a];
  p.confs.forEach((c, ci) => {
    out[ci * GRID_LENGTH + GRID_POINTS] = NET_CHARGE_WEIGHT * net;
    for (let a = 0; a < n; a++) {
      const q = set.charges[a];
      if (q === 0) continue;
      const base = (ci * n + a) * 3;
      for (let r = 0; r < 3; r++) {
        let v = 0;
        for (let d = 0; d < 3; d++) v += c.axes[3 * r + d] * (set.coords[base + d] - c.center[d]);
        f[r] = v;
      }
      POINTS.forEach(([gx, gy, gz], gi) => {
        const d2 = (f[0] - gx) ** 2 + (f[1] - gy) ** 2 + (f[2] - gz) ** 2;
        out[ci * GRID_LENGTH + gi] += q * Math.exp(-CHARGE_BETA * d2);
      });
    }
  });
  return out;
}

/** The query's conformer grids in the four flips, and their squared norms. */
export function flippedQuery(query: Float32Array): { flipped: Float32Array; norms: Float32Array } {
  const L = GRID_LENGTH;
  const qn = query.length / L;
  const flipped = new Float32Array(qn * 4 * L);
  const norms = new Float32Array(qn * 4);
  for (let q = 0; q < qn; q++)
    FLIPS.forEach((f, fi) => {
      let n = 0;
      for (let g = 0; g < L; g++) {
        const v = query[q * L + f[g]];
        flipped[(q * 4 + fi) * L + g] = v;
        n += v * v;
      }
      norms[q * 4 + fi] = n;
    });
  return { flipped, norms };
}

/**
 * The k rows of `table` (grid descriptors) most similar to `query` (its conformers' grids), best
 * first: Tanimoto for shape grids, cosine for charge grids.
 */
export function gridScan(
  query: Float32Array,
  table: DescriptorTable,
  k: number,
  metric: 'tanimoto' | 'cosine' = 'tanimoto',
): Shortlist {
  const L = GRID_LENGTH;
  const qn = query.length / L;
  // The query in all four flips, so the inner loop is a plain dot product.
  const { flipped, norms: qq } = flippedQuery(query);
  const { descriptors: db, offsets } = table;
  const rows = offsets.length - 1;
  const scores = new Float32Array(rows);
  for (let r = 0; r < rows; r++) {
    let best = -Infinity;
    for (let c = offsets[r]; c < offsets[r + 1]; c++) {
      const b = c * L;
      let bb = 0;
      for (let g = 0; g < L; g++) bb += db[b + g] * db[b + g];
      for (let v = 0; v < qn * 4; v++) {
        const a = v * L;
        let ab = 0;
        for (let g = 0; g < L; g++) ab += flipped[a + g] * db[b + g];
        const den = metric === 'tanimoto' ? qq[v] + bb - ab : Math.sqrt(qq[v] * bb);
        const t = den > 0 ? ab / den : 0;
        if (t > best) best = t;
      }
    }
    scores[r] = best;
  }
  const order = topK(scores, Math.min(k, rows));
  return { rows: order, scores: Float32Array.from(order, (r) => scores[r]) };
}
