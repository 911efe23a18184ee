/**
 * Our k-NN for the benchmark: one thread, in-process, shard by shard as job activities do (shards
 * by decreasing BitBound bound, each seeded with the k-th score reached so far), with the screen
 * bound or plain BitBound; and the small statistics helpers the report uses.
 */
import { maxBound } from '../../engine/search/bitbound.ts';
import {
  mergeHits,
  mergeTopK,
  prepareTanimoto,
  scanShardTopK,
  type Hit,
  type ShardLike,
} from '../../engine/search/index.ts';
import { cpuSeconds } from './kernel-bench.ts';

export interface KnnRun {
  hits: Hit[];
  /** Rows BitBound left, and rows whose fingerprint was read. */
  scanned: number;
  touched: number;
  ms: number;
  cpuMs: number;
}

/** Exact top-k of `q` over `shards` (catalog `id`) on this thread; `screen` false = plain BitBound. */
export function knnSerial(
  id: string,
  shards: ShardLike[],
  q: Uint8Array,
  k: number,
  screen: boolean,
): KnnRun {
  const t = performance.now();
  const c = process.cpuUsage();
  const pq = prepareTanimoto(q);
  const order = shards
    .map((s, i) => ({ i, b: maxBound(pq.bounds, s.popcounts[0], s.popcounts[s.rows - 1]) }))
    .sort((x, y) => y.b - x.b);
  let hits: Hit[] = [];
  let scanned = 0;
  let touched = 0;
  for (const { i, b } of order) {
    const floor = hits.length >= k ? hits[k - 1].similarity : -Infinity;
    if (b < floor) break;
    const r = scanShardTopK(shards[i], pq, { k, floor, blockBound: screen });
    scanned += r.scanned;
    touched += r.touched;
    hits = mergeHits(hits, mergeTopK([{ catalog: id, shard: i, rows: r.rows, scores: r.scores }], k), k);
  }
  return { hits, scanned, touched, ms: performance.now() - t, cpuMs: cpuSeconds(c) * 1000 };
}

export const mean = (xs: number[]): number => xs.reduce((s, x) => s + x, 0) / xs.length;
export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
export const spread = (xs: number[], digits = 2): string =>
  `${median(xs).toFixed(digits)} (${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)})`;
