import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BANDS,
  popcountOffsets,
  tanimotoBounds,
  tanimotoPopcountWindow,
} from '../../../engine/search/bitbound.ts';
import { tanimotoJs } from '../../../engine/search/kernel-js.ts';
import { prepareCentroid, prepareTanimoto } from '../../../engine/search/query.ts';
import { loadShardForScan, scanShardTopK } from '../../../engine/search/shard-memory.ts';
import { createTopKHeap, mergeTopK } from '../../../engine/search/topk.ts';
import { exhaustiveTopK } from './support/reference.ts';
import {
  fixtureFps,
  randomFps,
  readTestShard,
  rng,
  sortByPopcount,
  writeTestCatalog,
} from './support/shards.ts';

const dir = mkdtempSync(join(tmpdir(), 'search-scan-'));

describe('BitBound', () => {
  it('popcount offsets delimit each popcount band of a sorted column', () => {
    const pcs = Uint16Array.of(3, 3, 5, 9, 9, 9);
    const o = popcountOffsets(pcs);
    expect(o.length).toBe(BANDS + 1);
    expect([o[3], o[4], o[5], o[6], o[9], o[10], o[BANDS]]).toEqual([0, 2, 2, 3, 3, 6, 6]);
    expect(() => popcountOffsets(Uint16Array.of(4, 2))).toThrow(/not sorted/);
  });

  it('the bands reaching a threshold are exactly the window [ceil(t·a), floor(a/t)]', () => {
    for (const [a, t] of [
      [40, 0.7],
      [17, 0.35],
      [64, 0.5],
      [33, 0.9],
    ] as const) {
      const bounds = tanimotoBounds(a);
      const inBand = Array.from({ length: BANDS }, (_, b) => b).filter((b) => bounds[b] >= Math.fround(t));
      const [lo, hi] = tanimotoPopcountWindow(a, t);
      expect([inBand[0], inBand[inBand.length - 1], inBand.length]).toEqual([lo, hi, hi - lo + 1]);
    }
  });
});

describe('bounded top-k', () => {
  it('keeps the k best rows, breaking score ties by lower row', () => {
    const h = createTopKHeap(3);
    [
      [5, 0.5],
      [2, 0.5],
      [9, 0.9],
      [1, 0.1],
      [7, 0.5],
      [0, 0.5],
    ].forEach(([r, s]) => h.push(r, s));
    const { rows, scores } = h.finish();
    expect(Array.from(rows)).toEqual([9, 0, 2]);
    expect(Array.from(scores)).toEqual([0.9, 0.5, 0.5].map(Math.fround));
  });

  it('mergeTopK merges sorted parts into the global order (similarity desc, catalog, shard, row)', () => {
    const part = (catalog: string, shard: number, rows: number[], scores: number[]) => ({
      catalog,
      shard,
      rows: Int32Array.from(rows),
      scores: Float32Array.from(scores),
    });
    const hits = mergeTopK(
      [part('b', 0, [4, 1], [0.5, 0.25]), part('a', 1, [3], [0.5]), part('a', 0, [8, 2], [0.75, 0.5])],
      4,
    );
    expect(hits.map((h) => `${h.catalog}${h.shard}:${h.row}`)).toEqual(['a0:8', 'a0:2', 'a1:3', 'b0:4']);
  });
});

describe('scanShardTopK', () => {
  const fps = randomFps(20000, 3);
  const cat = writeTestCatalog(join(dir, 'rand'), 'rand', fps, 20000);
  const shard = loadShardForScan(cat.shardPath(0), 0, readTestShard);
  const ref = [{ catalog: 'rand', shard: 0, fps: cat.sorted }];
  const r = rng(11);

  it('reads the shard file into kernel memory without copying the fingerprint column', () => {
    expect(shard.fingerprints.buffer).toBe(shard.popcounts.buffer);
    expect(shard.fingerprints.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(Buffer.from(shard.fingerprints).equals(Buffer.from(cat.sorted))).toBe(true);
  });

  it('top-k with BitBound equals an exhaustive serial scan exactly, ties included', () => {
    for (let trial = 0; trial < 12; trial++) {
      const qi = Math.floor(r() * 20000);
      const q = cat.sorted.slice(qi * 256, qi * 256 + 256);
      const k = [1, 10, 100, 1000][trial % 4];
      const threshold = trial % 3 === 0 ? 0.3 : undefined;
      const got = scanShardTopK(shard, q, { k, threshold });
      const want = exhaustiveTopK(ref, prepareTanimoto(q), k, threshold);
      expect(Array.from(got.rows)).toEqual(want.map((h) => h.row));
      expect(Array.from(got.scores)).toEqual(want.map((h) => h.similarity));
    }
  });

  it('a shard parsed from an ordinary buffer scans the same (columns copied once into kernel memory)', () => {
    const plain = readTestShard(Uint8Array.from(readFileSync(cat.shardPath(0))), 0);
    const q = cat.sorted.slice(500 * 256, 501 * 256);
    expect(scanShardTopK(plain, q, { k: 50 })).toEqual(scanShardTopK(shard, q, { k: 50 }));
  });

  it('on real RDKit fingerprints, top-k and threshold scans equal the exhaustive scan', () => {
    const real = writeTestCatalog(join(dir, 'real'), 'real', fixtureFps(), 300);
    const s = loadShardForScan(real.shardPath(0), 0, readTestShard);
    for (let qi = 0; qi < 300; qi += 23) {
      const q = real.sorted.slice(qi * 256, qi * 256 + 256);
      for (const [k, t] of [
        [5, undefined],
        [300, 0.2],
        [20, 0.5],
      ] as const) {
        const want = exhaustiveTopK(
          [{ catalog: 'real', shard: 0, fps: real.sorted }],
          prepareTanimoto(q),
          k,
          t,
        );
        const got = scanShardTopK(s, q, { k, threshold: t });
        expect(Array.from(got.rows)).toEqual(want.map((h) => h.row));
        expect(Array.from(got.scores)).toEqual(want.map((h) => h.similarity));
      }
    }
  });

  it('threshold results contain every row scoring at or above the threshold and nothing else', () => {
    const q = cat.sorted.slice(777 * 256, 778 * 256);
    const got = scanShardTopK(shard, q, { k: 1e6, threshold: 0.12 });
    const n = cat.sorted.length / 256;
    const expected = Array.from({ length: n }, (_, i) => i).filter(
      (i) => tanimotoJs(q, cat.sorted, i) >= Math.fround(0.12),
    );
    expect([...got.rows].sort((a, b) => a - b)).toEqual(expected);
  });

  it('centroid top-k with bounds equals the exhaustive continuous-Tanimoto scan', () => {
    const q = prepareCentroid([3, 900, 4000].map((i) => cat.sorted.slice(i * 256, i * 256 + 256)));
    const want = exhaustiveTopK(ref, q, 200);
    const got = scanShardTopK(shard, q, { k: 200 });
    expect(Array.from(got.rows)).toEqual(want.map((h) => h.row));
    expect(Array.from(got.scores)).toEqual(want.map((h) => h.similarity));
  });

  it('sorting test data by popcount keeps every fingerprint', () => {
    expect(
      sortByPopcount(fps)
        .order.slice()
        .sort((a, b) => a - b),
    ).toEqual(Array.from({ length: 20000 }, (_, i) => i));
  });
});
