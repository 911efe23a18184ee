/**
 * The synchronous scan of one shard (or a row segment of it) for one prepared query: BitBound band
 * order, the fused threshold kernel in chunks, and a bounded heap. Pure apart from writing its own
 * scratch slot of the kernel memory; used by pool workers and in-process alike.
 */
import { bandOrder, minIntersection } from './bitbound.ts';
import { queryPlanesJs } from './kernel-js.ts';
import type { Kernel } from './kernel.ts';
import type { PreparedQuery } from './query.ts';
import { createTopKHeap, type ShardTopK } from './topk.ts';

/** Rows per kernel call: bounds the candidate buffers and how stale the heap floor gets. */
export const CHUNK_ROWS = 8192;

/** Scratch slot layout (bytes from the slot start): query, query screen planes, centroid weights, candidate rows, candidate scores. */
export const SLOT = {
  query: 0,
  queryBlocks: 256,
  weights: 512,
  rows: 512 + 2048 * 8,
  scores: 512 + 2048 * 8 + CHUNK_ROWS * 4,
  bytes: 512 + 2048 * 8 + CHUNK_ROWS * 8,
} as const;

/** Where a popcount-sorted shard's columns live in a kernel memory, plus its band offsets. */
export interface ShardRef {
  fpPtr: number;
  pcPtr: number;
  rows: number;
  /** popcountOffsets() of the shard's popcount column. */
  offsets: Int32Array;
  /** Row screens (BLOCK_BYTES per row, wasm/kernel-blocks.ts) in the same memory; without them the scan reads every fingerprint BitBound leaves. */
  blkPtr?: number;
}

export interface ScanOptions {
  k: number;
  /** Minimum similarity (inclusive, compared as f32). */
  threshold?: number;
  /** Known lower bound on the final k-th score (e.g. from other shards): rows below it are skipped. Inclusive. */
  floor?: number;
  rowStart?: number;
  rowEnd?: number;
  /**
   * Row filter indexed by shard row (length >= rows): rows whose byte is 0 never enter the heap.
   * Still exact: the heap floor (and so BitBound's early exit) only rises with accepted rows.
   */
  mask?: Uint8Array;
  /** Use the screen bound when the shard has screens (default true; false = plain BitBound scan, for benchmarks). */
  blockBound?: boolean;
}

export interface ScanResult extends ShardTopK {
  /** Rows BitBound left to the kernel (visited bands). */
  scanned: number;
  /** Rows whose fingerprint the kernel read and scored: `scanned` minus those the screen rejected. */
  touched: number;
}

function bandOf(offsets: Int32Array, row: number): number {
  let lo = 0;
  let hi = offsets.length - 2;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (offsets[mid] <= row) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * Top-k rows of shard rows [rowStart, rowEnd) for query q, exact: equal to scoring every row and
 * sorting by (score desc, row asc), restricted to scores >= max(threshold, floor) and to rows the
 * mask (when given) keeps. Visits popcount
 * bands in decreasing bound order and stops when the bound falls below the current k-th score.
 * `slotPtr` is this thread's scratch slot (SLOT.bytes) in kernel.memory.
 */
export function scanTopK(
  kernel: Kernel,
  slotPtr: number,
  shard: ShardRef,
  q: PreparedQuery,
  opts: ScanOptions,
): ScanResult {
  const rowStart = opts.rowStart ?? 0;
  const rowEnd = opts.rowEnd ?? shard.rows;
  const heap = createTopKHeap(opts.k);
  if (opts.k <= 0 || rowEnd <= rowStart) return { ...heap.finish(), scanned: 0, touched: 0 };
  const buffer = kernel.memory.buffer;
  const a = q.kind === 'tanimoto' ? q.popcount : 0;
  const useScreen = q.kind === 'tanimoto' && shard.blkPtr !== undefined && opts.blockBound !== false;
  const planes = useScreen ? queryPlanesJs(q.fp) : undefined;
  if (q.kind === 'tanimoto') {
    new Uint8Array(buffer, slotPtr + SLOT.query, 256).set(q.fp);
    if (planes) new Uint8Array(buffer, slotPtr + SLOT.queryBlocks, planes.planes.length).set(planes.planes);
  } else new Float64Array(buffer, slotPtr + SLOT.weights, 2048).set(q.weights);
  const outRows = new Int32Array(buffer, slotPtr + SLOT.rows, CHUNK_ROWS);
  const outScores = new Float32Array(buffer, slotPtr + SLOT.scores, CHUNK_ROWS);
  const base = Math.max(
    opts.threshold === undefined ? -Infinity : Math.fround(opts.threshold),
    opts.floor ?? -Infinity,
  );
  let cur = base;
  let scanned = 0;
  let touched = 0;
  const bands = bandOrder(q.bounds, bandOf(shard.offsets, rowStart), bandOf(shard.offsets, rowEnd - 1), base);
  for (const b of bands) {
    if (q.bounds[b] < cur) break;
    const hi = Math.min(shard.offsets[b + 1], rowEnd);
    for (let s = Math.max(shard.offsets[b], rowStart); s < hi; s += CHUNK_ROWS) {
      const e = Math.min(hi, s + CHUNK_ROWS);
      // Rows of band b score >= cur only if they share >= need bits with the query; with need 0
      // every row is a candidate and screening would only cost time.
      const need = planes ? minIntersection(a, b, cur) : 0;
      let n: number;
      if (need > 0) {
        const candidates = kernel.screenRows(
          planes!.count,
          shard.blkPtr!,
          slotPtr + SLOT.queryBlocks,
          s,
          e,
          need,
          planes!.weight,
          slotPtr + SLOT.rows,
        );
        n = kernel.scoreRows(
          slotPtr + SLOT.query,
          shard.fpPtr,
          shard.pcPtr,
          slotPtr + SLOT.rows,
          candidates,
          a,
          cur,
          slotPtr + SLOT.scores,
        );
        touched += candidates;
      } else {
        n =
          q.kind === 'tanimoto'
            ? kernel.scoreAbove(
                slotPtr + SLOT.query,
                shard.fpPtr,
                shard.pcPtr,
                s,
                e,
                q.popcount,
                cur,
                slotPtr + SLOT.rows,
                slotPtr + SLOT.scores,
              )
            : kernel.centroidAbove(
                slotPtr + SLOT.weights,
                q.weightsSq,
                shard.fpPtr,
                shard.pcPtr,
                s,
                e,
                cur,
                slotPtr + SLOT.rows,
                slotPtr + SLOT.scores,
              );
        touched += e - s;
      }
      scanned += e - s;
      const mask = opts.mask;
      if (mask) {
        for (let i = 0; i < n; i++) if (mask[outRows[i]]) heap.push(outRows[i], outScores[i]);
      } else {
        for (let i = 0; i < n; i++) heap.push(outRows[i], outScores[i]);
      }
      cur = Math.max(base, heap.floor());
    }
  }
  return { ...heap.finish(), scanned, touched };
}
