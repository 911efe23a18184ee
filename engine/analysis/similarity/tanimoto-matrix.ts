/**
 * Blocked Tanimoto matrix on the search's WebAssembly kernel. Targets are copied into kernel
 * memory one tile at a time (TILE_ROWS rows, 512 KiB: it stays in L2) and every query of the
 * batch streams over the tile before the next one is loaded, so each target byte comes from main
 * memory once per query batch instead of once per query. Scores are the kernel's f32 Tanimoto
 * c / (a + b - c) (0 for two empty fingerprints), identical to engine/search's scans.
 * Synchronous and CPU-bound: run it on a worker thread or in an activity, never on the API loop.
 */
import { createSharedMemory, instantiateKernel, type Kernel } from '../../search/kernel.ts';
import { FP_BYTES } from '../../chem/fingerprint.ts';
import type { FingerprintSet } from '../fingerprints.ts';

/** Target rows per tile. */
export const TILE_ROWS = 2048;
/** Query rows copied into kernel memory at once. */
export const QUERY_BATCH = 4096;

interface Workspace {
  kernel: Kernel;
  q: number;
  fp: number;
  pc: number;
  rows: number;
  scores: number;
}

let cached: Workspace | undefined;

const align = (x: number): number => Math.ceil(x / 64) * 64;

/** This thread's kernel workspace: query batch, one target tile, output rows and scores. */
function workspace(): Workspace {
  if (cached) return cached;
  const q = 0;
  const fp = align(QUERY_BATCH * FP_BYTES);
  const pc = fp + TILE_ROWS * FP_BYTES;
  const rows = align(pc + TILE_ROWS * 2);
  const scores = rows + TILE_ROWS * 4;
  cached = { kernel: instantiateKernel(createSharedMemory(scores + TILE_ROWS * 4)), q, fp, pc, rows, scores };
  return cached;
}

/**
 * Writes T(queries[i], targets[j]) for query rows i in [rowStart, rowEnd) and every target j to
 * `out[(i - rowStart) * targets.n + j]` (row-major, f32). `out` must hold
 * (rowEnd - rowStart) × targets.n values. Row ranges make the matrix splittable: parts computed
 * separately are exactly the rows of the whole.
 */
export function tanimotoMatrixInto(
  queries: FingerprintSet,
  targets: FingerprintSet,
  out: Float32Array,
  rowStart = 0,
  rowEnd = queries.n,
): void {
  const m = targets.n;
  if (out.length < (rowEnd - rowStart) * m)
    throw new RangeError(`output holds ${out.length} scores, needs ${(rowEnd - rowStart) * m}`);
  const ws = workspace();
  const mem = (): ArrayBufferLike => ws.kernel.memory.buffer;
  for (let q0 = rowStart; q0 < rowEnd; q0 += QUERY_BATCH) {
    const q1 = Math.min(rowEnd, q0 + QUERY_BATCH);
    new Uint8Array(mem(), ws.q, (q1 - q0) * FP_BYTES).set(queries.fps.subarray(q0 * FP_BYTES, q1 * FP_BYTES));
    for (let t0 = 0; t0 < m; t0 += TILE_ROWS) {
      const t1 = Math.min(m, t0 + TILE_ROWS);
      const tb = t1 - t0;
      new Uint8Array(mem(), ws.fp, tb * FP_BYTES).set(targets.fps.subarray(t0 * FP_BYTES, t1 * FP_BYTES));
      new Uint16Array(mem(), ws.pc, tb).set(targets.popcounts.subarray(t0, t1));
      const scores = new Float32Array(mem(), ws.scores, tb);
      for (let i = q0; i < q1; i++) {
        // Every row qualifies at -Infinity, so the two-stream kernel writes all tb scores in row order.
        ws.kernel.scoreAbove(
          ws.q + (i - q0) * FP_BYTES,
          ws.fp,
          ws.pc,
          0,
          tb,
          queries.popcounts[i],
          -Infinity,
          ws.rows,
          ws.scores,
        );
        out.set(scores, (i - rowStart) * m + t0);
      }
    }
  }
}

/**
 * Calls `onHits(i, cols, scores, count)` for each query row i in [rowStart, rowEnd) and each target
 * tile with the targets scoring >= minScore (f32 compare): `cols` are target indices, ascending
 * within a call, calls for one row in ascending tile order (rows of a batch interleave). The
 * buffers are reused after the callback returns, and the callback must not call back into this
 * module (one kernel workspace per thread). For threshold neighbour lists (Butina) without
 * materialising the matrix.
 */
export function tanimotoAboveEach(
  queries: FingerprintSet,
  targets: FingerprintSet,
  minScore: number,
  onHits: (row: number, cols: Int32Array, scores: Float32Array, count: number) => void,
  rowStart = 0,
  rowEnd = queries.n,
): void {
  const m = targets.n;
  const ws = workspace();
  const mem = (): ArrayBufferLike => ws.kernel.memory.buffer;
  const cols = new Int32Array(TILE_ROWS);
  for (let q0 = rowStart; q0 < rowEnd; q0 += QUERY_BATCH) {
    const q1 = Math.min(rowEnd, q0 + QUERY_BATCH);
    new Uint8Array(mem(), ws.q, (q1 - q0) * FP_BYTES).set(queries.fps.subarray(q0 * FP_BYTES, q1 * FP_BYTES));
    for (let t0 = 0; t0 < m; t0 += TILE_ROWS) {
      const t1 = Math.min(m, t0 + TILE_ROWS);
      const tb = t1 - t0;
      new Uint8Array(mem(), ws.fp, tb * FP_BYTES).set(targets.fps.subarray(t0 * FP_BYTES, t1 * FP_BYTES));
      new Uint16Array(mem(), ws.pc, tb).set(targets.popcounts.subarray(t0, t1));
      const rows = new Int32Array(mem(), ws.rows, tb);
      const scores = new Float32Array(mem(), ws.scores, tb);
      for (let i = q0; i < q1; i++) {
        const n = ws.kernel.scoreAbove(
          ws.q + (i - q0) * FP_BYTES,
          ws.fp,
          ws.pc,
          0,
          tb,
          queries.popcounts[i],
          minScore,
          ws.rows,
          ws.scores,
        );
        for (let k = 0; k < n; k++) cols[k] = rows[k] + t0;
        if (n > 0) onHits(i, cols, scores, n);
      }
    }
  }
}
