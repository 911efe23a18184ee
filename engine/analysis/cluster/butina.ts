/**
 * Butina (Taylor–Butina) clustering on Tanimoto distance, with exactly the semantics of RDKit's
 * `rdkit.ML.Cluster.Butina.ClusterData(dists, n, distThresh, isDistData=True)` on the distances
 * `1 - BulkTanimotoSimilarity(...)` (the default `reordering=False`):
 * - i and j are neighbours when 1 - T(i, j) <= threshold, T computed in f64 as c / (a + b - c);
 * - candidate centroids are taken by neighbour count descending, ties by index DEscending (RDKit
 *   sorts (count, index) pairs in reverse);
 * - a centroid not yet assigned opens a cluster: itself first, then its unassigned neighbours in
 *   ascending index order.
 * The neighbour lists are the heavy part and split by rows (butinaNeighbours per chunk, then
 * concatNeighbours); butinaClusters itself is linear in the number of neighbour pairs.
 */
import { AnalysisError, checkNumber } from '../errors.ts';
import type { FingerprintSet } from '../fingerprints.ts';
import { tanimotoAboveEach } from '../similarity/tanimoto-matrix.ts';

/** Neighbour lists in CSR form: neighbours of row r at neighbours[offsets[r] .. offsets[r + 1]), ascending. */
export interface NeighbourLists {
  rows: number;
  offsets: Int32Array;
  neighbours: Int32Array;
}

/** Neighbour pairs one computation may hold (4 bytes each): a threshold near 1 on many molecules is refused. */
export const MAX_NEIGHBOUR_PAIRS = 100_000_000;

/** RDKit's Tanimoto distance 1 - c / (a + b - c) in f64 (0 similarity for two empty fingerprints). */
export function tanimotoDistance(a: number, b: number, c: number): number {
  const d = a + b - c;
  return 1 - (d === 0 ? 0 : c / d);
}

/**
 * Neighbour lists (distance <= threshold, a row is not its own neighbour) of rows [rowStart,
 * rowEnd) against all rows of `set`. The kernel screens in f32 a little below the threshold; each
 * candidate's bit intersection is recovered exactly from its f32 score (c = T(a + b)/(1 + T) is
 * within 3e-4 of an integer) and tested in f64 as RDKit does, so the lists are exact.
 */
export function butinaNeighbours(
  set: FingerprintSet,
  threshold: number,
  rowStart = 0,
  rowEnd = set.n,
  maxPairs = MAX_NEIGHBOUR_PAIRS,
): NeighbourLists {
  checkNumber('threshold', threshold, 0, 1);
  const rows = rowEnd - rowStart;
  // Hits arrive tile by tile for a batch of rows, so they are collected as (row, column) pairs
  // and put in row order by a counting sort (stable: columns stay ascending within a row).
  let pairRows = new Int32Array(Math.max(16, rows * 4));
  let pairCols = new Int32Array(pairRows.length);
  let used = 0;
  const minScore = Math.fround(1 - threshold) - 1e-6;
  tanimotoAboveEach(
    set,
    set,
    minScore,
    (i, cols, scores, count) => {
      const a = set.popcounts[i];
      for (let k = 0; k < count; k++) {
        const j = cols[k];
        if (j === i) continue;
        const b = set.popcounts[j];
        const t = scores[k];
        const c = Math.round((t * (a + b)) / (1 + t));
        if (tanimotoDistance(a, b, c) > threshold) continue;
        if (used === pairRows.length) {
          if (used >= maxPairs)
            throw new AnalysisError(
              'too_large',
              'threshold',
              `more than ${maxPairs} neighbour pairs at threshold ${threshold}: use a smaller threshold or fewer molecules`,
            );
          const size = Math.min(maxPairs, used * 2);
          pairRows = grow(pairRows, size);
          pairCols = grow(pairCols, size);
        }
        pairRows[used] = i - rowStart;
        pairCols[used++] = j;
      }
    },
    rowStart,
    rowEnd,
  );
  const offsets = new Int32Array(rows + 1);
  for (let k = 0; k < used; k++) offsets[pairRows[k] + 1]++;
  for (let r = 0; r < rows; r++) offsets[r + 1] += offsets[r];
  const fill = offsets.slice(0, rows);
  const neighbours = new Int32Array(used);
  for (let k = 0; k < used; k++) neighbours[fill[pairRows[k]]++] = pairCols[k];
  return { rows, offsets, neighbours };
}

function grow(a: Int32Array, size: number): Int32Array<ArrayBuffer> {
  const b = new Int32Array(size);
  b.set(a);
  return b;
}

/** The lists of consecutive row chunks, in order, as one. */
export function concatNeighbours(parts: readonly NeighbourLists[]): NeighbourLists {
  const rows = parts.reduce((s, p) => s + p.rows, 0);
  const total = parts.reduce((s, p) => s + p.neighbours.length, 0);
  const offsets = new Int32Array(rows + 1);
  const neighbours = new Int32Array(total);
  let r = 0;
  let base = 0;
  for (const p of parts) {
    for (let k = 1; k <= p.rows; k++) offsets[r + k] = base + p.offsets[k];
    neighbours.set(p.neighbours, base);
    r += p.rows;
    base += p.neighbours.length;
  }
  return { rows, offsets, neighbours };
}

/** Butina clusters from complete neighbour lists: each cluster its centroid first, then members ascending. */
export function butinaClusters(lists: NeighbourLists): number[][] {
  const n = lists.rows;
  const order = Array.from({ length: n }, (_, i) => i);
  const count = (i: number): number => lists.offsets[i + 1] - lists.offsets[i];
  order.sort((x, y) => count(y) - count(x) || y - x);
  const seen = new Uint8Array(n);
  const clusters: number[][] = [];
  for (const idx of order) {
    if (seen[idx]) continue;
    const cluster = [idx];
    for (let k = lists.offsets[idx]; k < lists.offsets[idx + 1]; k++) {
      const j = lists.neighbours[k];
      if (!seen[j]) {
        cluster.push(j);
        seen[j] = 1;
      }
    }
    clusters.push(cluster);
  }
  return clusters;
}

/** Butina clustering of a fingerprint set at a distance threshold, in one call (synchronous sizes). */
export function butina(set: FingerprintSet, threshold: number): number[][] {
  if (set.n === 0) throw new AnalysisError('empty_input', 'search_input', 'needs at least one molecule');
  return butinaClusters(butinaNeighbours(set, threshold));
}
