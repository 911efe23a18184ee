/**
 * Database similarity: how close a list of molecules (or every molecule of a database) is to
 * another database, as the distribution of each molecule's nearest-neighbour Tanimoto in it. The
 * per-shard step is the exact k-NN scan of engine/search (k = 1, BitBound with the best score so
 * far as floor); a workflow runs nearestInShard per (query chunk, shard) and merges with
 * mergeNearest, which equals one scan over the whole database.
 */
import { scanShardTopK, type ShardLike } from '../../search/shard-memory.ts';
import { rowOf, type FingerprintSet } from '../fingerprints.ts';

/** Best score and row of each query in one shard; row -1 where the shard has no row at all. */
export interface NearestPart {
  shard: number;
  scores: Float32Array;
  rows: Int32Array;
}

/** Each query's nearest neighbour over all shards; `shard` and `row` -1 when the database is empty. */
export interface Nearest {
  scores: Float32Array;
  shards: Int32Array;
  rows: Int32Array;
}

/**
 * The nearest row of `shard` for each query (ties: lowest row). `floor` (optional, per query) is a
 * score already reached elsewhere: rows below it are pruned, so the part may report row -1 where
 * the shard cannot beat it; merging stays exact. Synchronous and CPU-bound (activities, workers).
 */
export function nearestInShard(shard: ShardLike, queries: FingerprintSet, floor?: Float32Array): NearestPart {
  const scores = new Float32Array(queries.n).fill(Number.NEGATIVE_INFINITY);
  const rows = new Int32Array(queries.n).fill(-1);
  for (let i = 0; i < queries.n; i++) {
    const top = scanShardTopK(shard, rowOf(queries, i), { k: 1, floor: floor?.[i] });
    if (top.rows.length > 0) {
      scores[i] = top.scores[0];
      rows[i] = top.rows[0];
    }
  }
  return { shard: shard.index, scores, rows };
}

/** Merges parts of the same queries: highest score, ties to the lower shard then row. */
export function mergeNearest(parts: readonly NearestPart[], n: number): Nearest {
  const out: Nearest = {
    scores: new Float32Array(n).fill(Number.NEGATIVE_INFINITY),
    shards: new Int32Array(n).fill(-1),
    rows: new Int32Array(n).fill(-1),
  };
  for (const p of parts) {
    for (let i = 0; i < n; i++) {
      if (p.rows[i] < 0) continue;
      const s = p.scores[i];
      const better =
        out.rows[i] < 0 ||
        s > out.scores[i] ||
        (s === out.scores[i] &&
          (p.shard < out.shards[i] || (p.shard === out.shards[i] && p.rows[i] < out.rows[i])));
      if (better) {
        out.scores[i] = s;
        out.shards[i] = p.shard;
        out.rows[i] = p.rows[i];
      }
    }
  }
  return out;
}
