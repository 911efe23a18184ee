/** Exhaustive serial scans in plain JS: the independent reference the fast paths must equal exactly. */
import { centroidScoreJs, tanimotoJs } from '../../../../engine/search/kernel-js.ts';
import { compareHits, type Hit } from '../../../../engine/search/topk.ts';
import type { PreparedQuery } from '../../../../engine/search/query.ts';

export interface RefShard {
  catalog: string;
  shard: number;
  fps: Uint8Array;
}

/** Scores every row of every shard, keeps score >= f32(threshold), sorts by compareHits, cuts at k. */
export function exhaustiveTopK(shards: RefShard[], q: PreparedQuery, k: number, threshold?: number): Hit[] {
  const t32 = threshold === undefined ? -Infinity : Math.fround(threshold);
  const all: Hit[] = [];
  for (const s of shards) {
    const rows = s.fps.length / 256;
    for (let row = 0; row < rows; row++) {
      const similarity =
        q.kind === 'tanimoto'
          ? tanimotoJs(q.fp, s.fps, row)
          : centroidScoreJs(q.weights, q.weightsSq, s.fps, row);
      if (similarity >= t32) all.push({ catalog: s.catalog, shard: s.shard, row, similarity });
    }
  }
  return all.sort(compareHits).slice(0, k);
}
