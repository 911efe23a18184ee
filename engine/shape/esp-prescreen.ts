/**
 * The ESP pre-stage between the pose-aware charge grid and the exact stage (docs/search.md, "The
 * ESP first stage"). The charge grid compares smoothed charges, not potentials: espsim's Coulomb
 * kernel is dominated by terms of 14–28 Å range (monopole and dipole products) that a 16 × 8 × 4 Å
 * grid cannot hold. So the charge grid's best `pool` rows are rescored with espsim's own ESP Carbo
 * (esp.ts, analytic, every atom) at the start poses the shape grid ranks best: the principal-axes
 * superpositions (conformer pair × axis flip) whose grid Tanimoto is within POSE_SLACK of the row's
 * best, a row scoring the best ESP among them (the exact stage takes the ESP at whichever of these
 * near-equal shape poses its optimisation ends in). No alignment is optimised, and espsim's kernel
 * is read from a table (linear in d², Carbo within 1e-4 of esp.ts): a pose costs ~1/100 of a
 * conformer pair's exact alignment. Measured on the bundled drugs: bench/shape/README.md.
 */
import { conformerCoords, type ConformerSet } from './conformers.ts';
import { gather, shapeAtoms } from './gaussian.ts';
import { espKernel } from './esp.ts';
import { prepareShape, principalFrame } from './frame.ts';
import { chargeGridDescriptors, flippedQuery, gridDescriptors, GRID_LENGTH } from './gaussian-grid.ts';
import { shardRow, type GridTables, type ShardConformers } from './grid-tables.ts';
import { POSE_SLACK, poseChargeScan } from './pose-grid.ts';
import type { Shortlist } from './scan.ts';

/** Kernel table step (Å²) and range: beyond 50 Å the kernel is evaluated directly (rare). */
const STEP = 0.05;
const TABLE = Float64Array.from({ length: Math.ceil(2500 / STEP) + 2 }, (_, i) => espKernel(i * STEP));

/** ⟨A|B⟩ of esp.ts espIntegral with the kernel interpolated from TABLE. */
export function tabulatedEspIntegral(
  xa: ArrayLike<number>,
  qa: ArrayLike<number>,
  xb: ArrayLike<number>,
  qb: ArrayLike<number>,
): number {
  const last = TABLE.length - 1;
  let sum = 0;
  for (let i = 0; i < qa.length; i++) {
    const qi = qa[i];
    if (qi === 0) continue;
    const x = xa[3 * i];
    const y = xa[3 * i + 1];
    const z = xa[3 * i + 2];
    let row = 0;
    for (let j = 0; j < qb.length; j++) {
      const dx = x - xb[3 * j];
      const dy = y - xb[3 * j + 1];
      const dz = z - xb[3 * j + 2];
      const d2 = dx * dx + dy * dy + dz * dz;
      const u = d2 / STEP;
      const k = Math.floor(u);
      row += qb[j] * (k < last ? TABLE[k] + (u - k) * (TABLE[k + 1] - TABLE[k]) : espKernel(d2));
    }
    sum += qi * row;
  }
  return sum;
}

/**
 * Start poses per row rescored at most (the best by shape grid Tanimoto within the slack): a
 * 10-conformer query has 40 starts per row conformer; the bench's 2.6-conformer queries keep 9.4
 * poses per row within the slack on average.
 */
export const MAX_PRESCREEN_POSES = 16;

/**
 * Rows the pre-stage rescores per shard for a shortlist of k rows: the charge grid's best
 * ESP_POOL_FACTOR × k (on the bundled drugs a pool of 800 for 400 keeps as much as rescoring every
 * row, 600 a little less: bench/shape/README.md).
 */
export const ESP_POOL_FACTOR = 2;
export const espPoolRows = (k: number): number => Math.ceil(ESP_POOL_FACTOR * k);

/** Axis sign flips in the order of gaussian-grid.ts FLIPS (= the alignment's first 4 starts). */
const FLIP_SIGNS = [
  [1, 1, 1],
  [1, -1, -1],
  [-1, 1, -1],
  [-1, -1, 1],
];

/** Centre and principal axes of conformer `c` (its heavy atoms), exactly as prepareShape frames it. */
function frameOf(set: ConformerSet, heavy: Uint32Array, c: number) {
  return principalFrame(gather(set.coords, c * set.atomCount, heavy, false));
}

/** Every atom of conformer `c` in its principal-axes frame, the axes' signs flipped by `sign`. */
function frameCoords(set: ConformerSet, heavy: Uint32Array, c: number, sign = FLIP_SIGNS[0]): Float64Array {
  const x = conformerCoords(set, c);
  const { axes, center } = frameOf(set, heavy, c);
  const out = new Float64Array(x.length);
  for (let m = 0; m < x.length; m += 3) {
    const dx = x[m] - center[0];
    const dy = x[m + 1] - center[1];
    const dz = x[m + 2] - center[2];
    for (let r = 0; r < 3; r++)
      out[m + r] = sign[r] * (axes[3 * r] * dx + axes[3 * r + 1] * dy + axes[3 * r + 2] * dz);
  }
  return out;
}

/** The query prepared once for prescreening: its grids and its atoms in every conformer × flip. */
export interface EspPrescreenQuery {
  shape: Float32Array;
  charge: Float32Array;
  /** The shape grids in the four flips (gaussian-grid.ts flippedQuery). */
  flippedShape: { flipped: Float32Array; norms: Float32Array };
  charges: Float32Array;
  /** [conformer × 4 + flip]: every atom's frame coordinates under that flip. */
  flipped: Float64Array[];
  /** ⟨A|A⟩ per query conformer. */
  self: Float64Array;
}

export function prescreenQuery(query: ConformerSet): EspPrescreenQuery {
  const p = prepareShape(query);
  const heavy = shapeAtoms(query, false);
  const flipped = p.confs.flatMap((_, c) => FLIP_SIGNS.map((s) => frameCoords(query, heavy, c, s)));
  const self = Float64Array.from(p.confs, (_, c) => {
    const x = flipped[c * 4];
    return tabulatedEspIntegral(x, query.charges, x, query.charges);
  });
  const shape = gridDescriptors(p);
  return {
    shape,
    charge: chargeGridDescriptors(p),
    flippedShape: flippedQuery(shape),
    charges: query.charges,
    flipped,
    self,
  };
}

/**
 * The prescreen score of one row: espsim's ESP Carbo, best over the start poses within `slack` of
 * the row's best shape grid Tanimoto. `shapeGrids` holds the row's conformers' shape grids
 * (GRID_LENGTH floats each, the row's slice of its grid table).
 */
export function prescreenRow(
  q: EspPrescreenQuery,
  row: ConformerSet,
  shapeGrids: Float32Array,
  slack = POSE_SLACK,
): number {
  const L = GRID_LENGTH;
  const S = q.flippedShape;
  const nv = S.norms.length;
  const poses: { t: number; v: number; rc: number }[] = [];
  let bestT = -Infinity;
  for (let rc = 0; rc < row.confCount; rc++) {
    const b = rc * L;
    let bb = 0;
    for (let g = 0; g < L; g++) bb += shapeGrids[b + g] * shapeGrids[b + g];
    for (let v = 0; v < nv; v++) {
      let ab = 0;
      for (let g = 0; g < L; g++) ab += S.flipped[v * L + g] * shapeGrids[b + g];
      const den = S.norms[v] + bb - ab;
      const t = den > 0 ? ab / den : 0;
      poses.push({ t, v, rc });
      if (t > bestT) bestT = t;
    }
  }
  // The MAX_PRESCREEN_POSES best poses within the slack.
  const kept = poses
    .filter((p) => p.t >= bestT - slack)
    .sort((a, b) => b.t - a.t)
    .slice(0, MAX_PRESCREEN_POSES);
  const heavy = shapeAtoms(row, false);
  const frames = new Map<number, { x: Float64Array; self: number }>();
  let best = -Infinity;
  for (const pose of kept) {
    let f = frames.get(pose.rc);
    if (!f) {
      const x = frameCoords(row, heavy, pose.rc);
      f = { x, self: tabulatedEspIntegral(x, row.charges, x, row.charges) };
      frames.set(pose.rc, f);
    }
    // Flipping the query by F equals flipping the row by F (the flips are their own inverses).
    const ab = tabulatedEspIntegral(q.flipped[pose.v], q.charges, f.x, row.charges);
    const den = Math.sqrt(q.self[Math.floor(pose.v / 4)] * f.self);
    const c = den > 0 ? ab / den : 0;
    if (c > best) best = c;
  }
  return best;
}

/** One part's rescored pool rows: the row, its score and its rank in the charge grid's pool. */
export interface PrescreenPart {
  rows: Uint32Array;
  scores: Float32Array;
  /** Position in the pool (the charge grid's order): breaks score ties as a serial scan does. */
  ranks: Uint32Array;
}

/**
 * Part `part` of `parts` of the ESP pre-stage over one shard: the pose-aware charge grid's best
 * `pool` rows (pose-grid.ts), those at pool positions ≡ part (mod parts) rescored by prescreenRow.
 * The parts run on separate threads (pool.ts); each repeats the charge grid scan (~1/20 of the
 * rescoring) rather than wait for one.
 */
export function espPrescreenPart(
  query: ConformerSet,
  tables: GridTables,
  shard: ShardConformers,
  pool: number,
  part = 0,
  parts = 1,
): PrescreenPart {
  const q = prescreenQuery(query);
  const pre = poseChargeScan(q.shape, q.charge, tables, pool);
  const { descriptors, offsets } = tables.shape;
  const L = GRID_LENGTH;
  const ranks: number[] = [];
  for (let i = part; i < pre.rows.length; i += parts) ranks.push(i);
  const scores = Float32Array.from(ranks, (i) => {
    const r = pre.rows[i];
    const row = shardRow(shard, r);
    return row ? prescreenRow(q, row, descriptors.subarray(offsets[r] * L, offsets[r + 1] * L)) : -Infinity;
  });
  return { rows: Uint32Array.from(ranks, (i) => pre.rows[i]), scores, ranks: Uint32Array.from(ranks) };
}

/** The `k` best rows of the parts by score, ties by pool position: the same for any split. */
export function mergePrescreenParts(parts: PrescreenPart[], k: number): Shortlist {
  const all = parts.flatMap((p) =>
    Array.from(p.rows, (row, i) => ({ row, score: p.scores[i], rank: p.ranks[i] })),
  );
  all.sort((a, b) => b.score - a.score || a.rank - b.rank);
  const top = all.slice(0, k);
  return { rows: Uint32Array.from(top, (t) => t.row), scores: Float32Array.from(top, (t) => t.score) };
}

/**
 * The ESP first stage over one shard: the pose-aware charge grid's best `pool` rows, rescored by
 * prescreenRow, the `k` best of them by that score, best first. A per-row score over a per-shard
 * pool, so the synchronous search (shards merged by score) and a 3D job (per shard) keep the same
 * rows of a shard.
 */
export function espPrescreenScan(
  query: ConformerSet,
  tables: GridTables,
  shard: ShardConformers,
  k: number,
  pool = espPoolRows(k),
): Shortlist {
  return mergePrescreenParts([espPrescreenPart(query, tables, shard, Math.max(k, pool))], k);
}
