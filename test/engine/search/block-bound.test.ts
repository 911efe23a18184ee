import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { minIntersection, popcountOffsets } from '../../../engine/search/bitbound.ts';
import { createSharedMemory, instantiateKernel } from '../../../engine/search/kernel.ts';
import {
  blockPopcountsJs,
  popcountOf,
  scoreRangeJs,
  tanimotoFromCounts,
} from '../../../engine/search/kernel-js.ts';
import { createSearchPool } from '../../../engine/search/pool.ts';
import { prepareTanimoto } from '../../../engine/search/query.ts';
import { loadShardForScan, scanShardTopK } from '../../../engine/search/shard-memory.ts';
import { BLOCK_BYTES } from '../../../engine/search/wasm/kernel-blocks.ts';
import { exhaustiveTopK } from './support/reference.ts';
import {
  fixtureFps,
  randomFps,
  readTestShard,
  rng,
  sortByPopcount,
  writeTestCatalog,
} from './support/shards.ts';

const dir = mkdtempSync(join(tmpdir(), 'search-blocks-'));

/** Rows sorted by popcount, with all-ones and empty rows (extreme block counts) and the RDKit fixture mixed in. */
function testRows(): Uint8Array {
  const extra = new Uint8Array(4 * 256);
  extra.fill(0xff, 0, 256);
  extra.fill(0xff, 2 * 256, 2 * 256 + 100);
  return sortByPopcount(new Uint8Array([...randomFps(2500, 31), ...fixtureFps(), ...extra])).sorted;
}

describe('block popcounts and the block bound', () => {
  const fps = testRows();
  const n = fps.length / 256;
  const FP = 1 << 16;
  const PC = FP + n * 256;
  const BLK = PC + n * 2 + 64;
  const OUT_ROWS = BLK + n * BLOCK_BYTES;
  const OUT_SCORES = OUT_ROWS + n * 4;
  const QBLK = 512;
  const kernel = instantiateKernel(createSharedMemory(OUT_SCORES + n * 4));
  const mem = new Uint8Array(kernel.memory.buffer);
  mem.set(fps, FP);
  const pcs = new Uint16Array(kernel.memory.buffer, PC, n);
  for (let i = 0; i < n; i++) pcs[i] = popcountOf(fps, i);
  kernel.blockPopcounts(FP, 0, n, BLK);
  const offsets = popcountOffsets(pcs);

  it('block_popcounts equals the JS reference on every row, up to all-ones rows', () => {
    for (let i = 0; i < n; i++)
      expect(Array.from(mem.subarray(BLK + i * BLOCK_BYTES, BLK + (i + 1) * BLOCK_BYTES))).toEqual(
        Array.from(blockPopcountsJs(fps, i, BLOCK_BYTES)),
      );
    expect(mem[BLK + (n - 1) * BLOCK_BYTES]).toBe(2048 / BLOCK_BYTES); // the all-ones row sorts last
  });

  it('minIntersection is the least intersection reaching the score, so c >= it exactly when the score qualifies', () => {
    for (const [a, b] of [
      [0, 0],
      [0, 7],
      [40, 40],
      [17, 63],
      [120, 33],
      [2048, 2048],
    ]) {
      for (const t of [-Infinity, 0, 0.2, Math.fround(1 / 3), 0.5, Math.fround(17 / 63), 1, 1.5]) {
        const need = minIntersection(a, b, t);
        for (let c = 0; c <= Math.min(a, b); c++) expect(tanimotoFromCounts(a, b, c) >= t).toBe(c >= need);
      }
    }
  });

  it('scoreAboveBlocks returns what scoreAbove returns for every band and minimum, and reads only rows the bound admits', () => {
    const r = rng(5);
    for (let trial = 0; trial < 40; trial++) {
      const qi = Math.floor(r() * n);
      const q = fps.slice(qi * 256, qi * 256 + 256);
      const a = popcountOf(q);
      mem.set(q, 0);
      mem.set(blockPopcountsJs(q, 0, BLOCK_BYTES), QBLK);
      const ref = scoreRangeJs(q, fps, 0, n);
      const b = pcs[Math.floor(r() * n)];
      const [s, e] = [offsets[b], offsets[b + 1]];
      const min = [ref[qi], Math.fround(0.3), ref[Math.floor(r() * n)], Math.fround(0.05)][trial % 4];
      const need = minIntersection(a, b, min);
      const wantN = kernel.scoreAbove(0, FP, PC, s, e, a, min, OUT_ROWS, OUT_SCORES);
      const want = [
        Array.from(new Int32Array(kernel.memory.buffer, OUT_ROWS, wantN)),
        Array.from(new Float32Array(kernel.memory.buffer, OUT_SCORES, wantN)),
      ];
      const packed = kernel.scoreAboveBlocks(0, FP, PC, BLK, QBLK, s, e, a, min, need, OUT_ROWS, OUT_SCORES);
      const gotN = packed & 0xffff;
      expect([
        Array.from(new Int32Array(kernel.memory.buffer, OUT_ROWS, gotN)),
        Array.from(new Float32Array(kernel.memory.buffer, OUT_SCORES, gotN)),
      ]).toEqual(want);
      const qb = blockPopcountsJs(q, 0, BLOCK_BYTES);
      let admitted = 0;
      for (let i = s; i < e; i++) {
        const rb = blockPopcountsJs(fps, i, BLOCK_BYTES);
        if (qb.reduce((m, x, j) => m + Math.min(x, rb[j]), 0) >= need) admitted++;
      }
      expect(packed >>> 16).toBe(admitted);
    }
  });
});

describe('scanShardTopK with the block bound', () => {
  const fps = new Uint8Array([...randomFps(15000, 41), ...fixtureFps()]);
  const cat = writeTestCatalog(join(dir, 'mixed'), 'mixed', fps, fps.length / 256);
  const shard = loadShardForScan(cat.shardPath(0), 0, readTestShard);
  const rows = shard.rows;
  const ref = [{ catalog: 'mixed', shard: 0, fps: cat.sorted }];
  const r = rng(23);

  it('equals the exhaustive scan and the plain BitBound scan exactly (ties, thresholds, floors, masks) while reading fewer rows', () => {
    let touched = 0;
    let scanned = 0;
    for (let trial = 0; trial < 24; trial++) {
      const qi = Math.floor(r() * rows);
      const q = prepareTanimoto(cat.sorted.slice(qi * 256, qi * 256 + 256));
      const k = [1, 10, 100, 1000][trial % 4];
      const threshold = trial % 3 === 0 ? [0.2, 0.45, 0.7][(trial % 9) / 3] : undefined;
      const mask = trial % 5 === 1 ? Uint8Array.from({ length: rows }, () => (r() < 0.3 ? 1 : 0)) : undefined;
      const plain = scanShardTopK(shard, q, { k, threshold, mask, blockBound: false });
      const blocks = scanShardTopK(shard, q, { k, threshold, mask });
      expect([Array.from(blocks.rows), Array.from(blocks.scores)]).toEqual([
        Array.from(plain.rows),
        Array.from(plain.scores),
      ]);
      expect(blocks.scanned).toBe(plain.scanned);
      expect(plain.touched).toBe(plain.scanned);
      touched += blocks.touched;
      scanned += blocks.scanned;
      if (!mask) {
        const want = exhaustiveTopK(ref, q, k, threshold);
        expect(Array.from(blocks.rows)).toEqual(want.map((h) => h.row));
        expect(Array.from(blocks.scores)).toEqual(want.map((h) => Math.fround(h.similarity)));
      }
      // A floor from other shards: the result is the exhaustive list cut at the floor.
      const floor = plain.scores.length ? plain.scores[plain.scores.length >> 1] : 0.5;
      const floored = scanShardTopK(shard, q, { k, threshold, floor, mask });
      const wantFloored = scanShardTopK(shard, q, { k, threshold, floor, mask, blockBound: false });
      expect([Array.from(floored.rows), Array.from(floored.scores)]).toEqual([
        Array.from(wantFloored.rows),
        Array.from(wantFloored.scores),
      ]);
    }
    expect(touched).toBeLessThan(scanned * 0.9);
  });

  it('handles exact duplicates of the query (score 1 ties broken by row)', () => {
    const dup = cat.sorted.slice(6 * 256, 7 * 256); // randomFps duplicates every 7th row
    const got = scanShardTopK(shard, dup, { k: 5 });
    const want = exhaustiveTopK(ref, prepareTanimoto(dup), 5);
    expect(Array.from(got.rows)).toEqual(want.map((h) => h.row));
  });
});

describe('search pool with the block bound', () => {
  const fps = randomFps(9000, 51);
  const cat = writeTestCatalog(join(dir, 'pool'), 'pool', fps, 2000);
  const on = createSearchPool({ threads: 2, readShard: readTestShard, segmentRows: 600 });
  const off = createSearchPool({ threads: 2, readShard: readTestShard, segmentRows: 600, blockBound: false });
  afterAll(async () => {
    await on.close();
    await off.close();
  });

  it('returns the same hits as the plain pool and the exhaustive scan, reading fewer fingerprints', async () => {
    await on.loadCatalog(cat);
    await off.loadCatalog(cat);
    const refShards = cat.manifest.shards.map((s, i) => {
      const start = cat.manifest.shards.slice(0, i).reduce((m, x) => m + x.rows, 0);
      return { catalog: 'pool', shard: i, fps: cat.sorted.subarray(start * 256, (start + s.rows) * 256) };
    });
    for (const [row, k, threshold] of [
      [3, 100, undefined],
      [4500, 20, undefined],
      [8999, 500, 0.3],
      [1234, 1, undefined],
    ] as const) {
      const q = cat.sorted.slice(row * 256, row * 256 + 256);
      const got = await on.knn({ catalogs: ['pool'], query: q, k, threshold });
      expect(got).toEqual(await off.knn({ catalogs: ['pool'], query: q, k, threshold }));
      expect(got).toEqual(exhaustiveTopK(refShards, prepareTanimoto(q), k, threshold));
    }
    const s = on.stats();
    expect(s.rowsTouched).toBeLessThan(s.rowsScanned);
    expect(off.stats().rowsTouched).toBe(off.stats().rowsScanned);
  });
});
