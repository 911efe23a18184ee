import { beforeAll, describe, expect, it } from 'vitest';
import { rowOf, sliceSet, type FingerprintSet } from '../../../../engine/analysis/fingerprints.ts';
import { mergeNearest, nearestInShard } from '../../../../engine/analysis/similarity/database.ts';
import { quantileSorted, scoreDistribution } from '../../../../engine/analysis/similarity/distribution.ts';
import { popcountOf } from '../../../../engine/search/kernel-js.ts';
import { readTestShard, shardBytes, type TestShard } from '../../search/support/shards.ts';
import { expectAnalysisError, ref, setOf } from '../support/reference.ts';

/** A popcount-sorted test shard of the given rows of a set; `order` maps shard rows to set rows. */
function shardOf(set: FingerprintSet, rows: number[], index: number): { shard: TestShard; order: number[] } {
  const order = [...rows].sort((a, b) => popcountOf(set.fps, a) - popcountOf(set.fps, b) || a - b);
  const fps = new Uint8Array(order.length * 256);
  order.forEach((r, i) => fps.set(rowOf(set, r), i * 256));
  return { shard: readTestShard(shardBytes(fps, order.map(String)), index), order };
}

let drugs: FingerprintSet;
let queries: FingerprintSet;
beforeAll(async () => {
  drugs = await setOf(ref.set_a.smiles);
  queries = sliceSet(drugs, 0, 25);
});

describe('database similarity (nearest-neighbour scores against a catalog)', () => {
  // database: drugs 25..149 in two shards; queries: drugs 0..24 (not in the database)
  const dbRows = (lo: number, hi: number): number[] => Array.from({ length: hi - lo }, (_, i) => lo + i);

  it("gives each query the maximum of RDKit's similarities to the database, merged over shards", () => {
    const a = shardOf(drugs, dbRows(25, 90), 0);
    const b = shardOf(drugs, dbRows(90, 150), 1);
    const merged = mergeNearest([nearestInShard(a.shard, queries), nearestInShard(b.shard, queries)], 25);
    for (let q = 0; q < 25; q++) {
      const expected = Math.max(...ref.similarity.values[q].slice(25));
      expect(merged.scores[q]).toBe(Math.fround(expected));
      const hit = (merged.shards[q] === 0 ? a : b).order[merged.rows[q]];
      expect(Math.fround(ref.similarity.values[q][hit])).toBe(merged.scores[q]);
    }
  });

  it('gives the same result when the second shard is scanned with the first shard’s scores as floor', () => {
    const a = shardOf(drugs, dbRows(25, 90), 0);
    const b = shardOf(drugs, dbRows(90, 150), 1);
    const first = nearestInShard(a.shard, queries);
    const plain = mergeNearest([first, nearestInShard(b.shard, queries)], 25);
    const floored = mergeNearest([first, nearestInShard(b.shard, queries, first.scores)], 25);
    expect(floored).toEqual(plain);
  });

  it('summarises the scores with numpy-style quantiles and a [0, 1] histogram', () => {
    const d = scoreDistribution(Float32Array.of(0.2, 0.4, 0.6, 0.8, Number.NaN), 4);
    expect(d.count).toBe(4);
    expect(d.mean).toBeCloseTo(0.5, 6);
    expect(d.quantiles.p25).toBeCloseTo(0.35, 6);
    expect(d.histogram.counts).toEqual([1, 1, 1, 1]);
    expect(quantileSorted([1, 2, 3, 4], 0.25)).toBe(1.75);
    expect(quantileSorted([1, 2, 3, 4], 0.5)).toBe(2.5);
    expectAnalysisError(() => scoreDistribution([Number.NaN]), 'empty_input');
  });
});
