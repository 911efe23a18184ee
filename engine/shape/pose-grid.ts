/**
 * The pose-aware ESP first stage. The exact stage takes espsim's ESP Carbo at the best *shape*
 * alignment, so the charges are compared where the shape grid puts the molecules rather than at
 * whichever pose suits the charges best: every (query conformer, flip, row conformer) is a
 * candidate pose, scored by its shape grid Tanimoto T and its charge grid cosine C (gaussian-grid.ts,
 * same frames), and a row scores the best C among the poses whose T is within `slack` of the row's
 * best T. On the bundled ChEMBL drugs this recalls the exact ESP top 30 better than the best C over
 * all poses (bench/shape/README.md, recall per search quality).
 */
import { flippedQuery, GRID_LENGTH } from './gaussian-grid.ts';
import type { GridTables } from './grid-tables.ts';
import { topK, type Shortlist } from './scan.ts';

/** Shape grid Tanimoto below a row's best that a pose may lose and still count (measured: README). */
export const POSE_SLACK = 0.05;

/**
 * The k rows of `tables` with the best pose-aware charge score against a query's shape and charge
 * grids (gridDescriptors and chargeGridDescriptors of the same prepared conformers), best first.
 */
export function poseChargeScan(
  queryShape: Float32Array,
  queryCharge: Float32Array,
  tables: GridTables,
  k: number,
  slack = POSE_SLACK,
): Shortlist {
  const L = GRID_LENGTH;
  const nv = (queryShape.length / L) * 4;
  const S = flippedQuery(queryShape);
  const C = flippedQuery(queryCharge);
  const { descriptors: sdb, offsets } = tables.shape;
  const cdb = tables.charge.descriptors;
  const rows = offsets.length - 1;
  const scores = new Float32Array(rows);
  let t = new Float64Array(0);
  let cos = new Float64Array(0);
  for (let r = 0; r < rows; r++) {
    const poses = (offsets[r + 1] - offsets[r]) * nv;
    if (t.length < poses) [t, cos] = [new Float64Array(poses), new Float64Array(poses)];
    let bestT = -Infinity;
    let p = 0;
    for (let c = offsets[r]; c < offsets[r + 1]; c++) {
      const b = c * L;
      let bb = 0;
      let cc = 0;
      for (let g = 0; g < L; g++) {
        bb += sdb[b + g] * sdb[b + g];
        cc += cdb[b + g] * cdb[b + g];
      }
      for (let v = 0; v < nv; v++, p++) {
        const a = v * L;
        let ab = 0;
        let ac = 0;
        for (let g = 0; g < L; g++) {
          ab += S.flipped[a + g] * sdb[b + g];
          ac += C.flipped[a + g] * cdb[b + g];
        }
        const den = S.norms[v] + bb - ab;
        t[p] = den > 0 ? ab / den : 0;
        const cden = Math.sqrt(C.norms[v] * cc);
        cos[p] = cden > 0 ? ac / cden : 0;
        if (t[p] > bestT) bestT = t[p];
      }
    }
    let best = poses ? -Infinity : 0;
    for (let i = 0; i < poses; i++) if (t[i] >= bestT - slack && cos[i] > best) best = cos[i];
    scores[r] = best;
  }
  const order = topK(scores, Math.min(k, rows));
  return { rows: order, scores: Float32Array.from(order, (r) => scores[r]) };
}
