import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MORGAN_DETAILS } from '../../../engine/chem/fingerprint.ts';
import { getRDKit, withMol } from '../../../engine/chem/rdkit.ts';
import { minIntersection, popcountOffsets } from '../../../engine/search/bitbound.ts';
import { createSharedMemory, instantiateKernel } from '../../../engine/search/kernel.ts';
import {
  blockBitsJs,
  popcountOf,
  queryPlanesJs,
  scoreRangeJs,
  screenBoundJs,
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

const dir = mkdtempSync(join(tmpdir(), 'search-screen-'));

/** Intersection count of the query with row i of fps. */
function common(q: Uint8Array, fps: Uint8Array, i: number): number {
  let c = 0;
  for (let j = 0; j < 256; j++) {
    let v = q[j] & fps[i * 256 + j];
    for (; v; v &= v - 1) c++;
  }
  return c;
}

/** Rows sorted by popcount: random, the RDKit fixture, and extremes (all ones, empty, one full byte, dense bytes). */
function testRows(): Uint8Array {
  const extra = new Uint8Array(6 * 256);
  extra.fill(0xff, 0, 256);
  extra.fill(0xff, 2 * 256, 2 * 256 + 100);
  extra[3 * 256 + 17] = 0xff;
  for (let j = 0; j < 256; j += 3) extra[4 * 256 + j] = 0x7f;
  extra[5 * 256 + 255] = 0x80;
  return sortByPopcount(new Uint8Array([...randomFps(2500, 31), ...fixtureFps(), ...extra])).sorted;
}

describe('row screens and the screen bound', () => {
  const fps = testRows();
  const n = fps.length / 256;
  const FP = 1 << 16;
  const PC = FP + n * 256;
  const SCR = PC + n * 2 + 64;
  const OUT_ROWS = SCR + n * BLOCK_BYTES;
  const OUT_SCORES = OUT_ROWS + n * 4;
  const QP = 512;
  const kernel = instantiateKernel(createSharedMemory(OUT_SCORES + n * 4));
  const mem = new Uint8Array(kernel.memory.buffer);
  mem.set(fps, FP);
  const pcs = new Uint16Array(kernel.memory.buffer, PC, n);
  for (let i = 0; i < n; i++) pcs[i] = popcountOf(fps, i);
  kernel.blockBits(FP, 0, n, SCR);
  const offsets = popcountOffsets(pcs);
  const screen = (i: number) => mem.subarray(SCR + i * BLOCK_BYTES, SCR + (i + 1) * BLOCK_BYTES);

  it('block_bits sets bit j of a row exactly when its byte j is non-zero, on every row', () => {
    for (let i = 0; i < n; i++) expect(Array.from(screen(i))).toEqual(Array.from(blockBitsJs(fps, i)));
    expect(Array.from(screen(n - 1))).toEqual(new Array(32).fill(0xff)); // the all-ones row sorts last
  });

  it('the bound is never below the true intersection, for every query and row', () => {
    const r = rng(7);
    const queries = [n - 1, n - 2, 0, ...Array.from({ length: 30 }, () => Math.floor(r() * n))];
    for (const qi of queries) {
      const q = fps.slice(qi * 256, qi * 256 + 256);
      const planes = queryPlanesJs(q);
      for (let i = 0; i < n; i++) {
        const m = screenBoundJs(planes, screen(i));
        const c = common(q, fps, i);
        expect(m).toBeGreaterThanOrEqual(c);
      }
      // Against itself the bound is exact (sum of its byte popcounts) while no byte holds more than 3 bits.
      if (planes.weight <= 1) expect(screenBoundJs(planes, screen(qi))).toBe(popcountOf(q));
    }
  });

  it('query planes need a third plane, weighted, only when a query byte holds three bits or more', () => {
    expect(queryPlanesJs(new Uint8Array(256).fill(0x01))).toMatchObject({ count: 1, weight: 0 });
    expect(queryPlanesJs(new Uint8Array(256).fill(0x03))).toMatchObject({ count: 2, weight: 0 });
    const full = new Uint8Array(256);
    full[9] = 0xff;
    expect(queryPlanesJs(full)).toMatchObject({ count: 3, weight: 6 });
  });

  it('screen_rows keeps exactly the rows whose bound reaches the need, and tanimoto_rows then returns what scoreAbove returns', () => {
    const r = rng(5);
    for (let trial = 0; trial < 40; trial++) {
      const qi = trial === 0 ? n - 1 : Math.floor(r() * n);
      const q = fps.slice(qi * 256, qi * 256 + 256);
      const a = popcountOf(q);
      const planes = queryPlanesJs(q);
      mem.set(q, 0);
      mem.set(planes.planes, QP);
      const ref = scoreRangeJs(q, fps, 0, n);
      const b = pcs[Math.floor(r() * n)];
      const [s, e] = [offsets[b], offsets[b + 1]];
      const min = [ref[qi], Math.fround(0.3), ref[Math.floor(r() * n)], Math.fround(0.05)][trial % 4];
      const need = minIntersection(a, b, min);
      const want = [];
      for (let i = s; i < e; i++) if (screenBoundJs(planes, screen(i)) >= need) want.push(i);
      const cand = kernel.screenRows(planes.count, SCR, QP, s, e, need, planes.weight, OUT_ROWS);
      expect(Array.from(new Int32Array(kernel.memory.buffer, OUT_ROWS, cand))).toEqual(want);
      const got = kernel.scoreRows(0, FP, PC, OUT_ROWS, cand, a, min, OUT_SCORES);
      const gotRows = Array.from(new Int32Array(kernel.memory.buffer, OUT_ROWS, got));
      const gotScores = Array.from(new Float32Array(kernel.memory.buffer, OUT_SCORES, got));
      const nAbove = kernel.scoreAbove(0, FP, PC, s, e, a, min, OUT_ROWS, OUT_SCORES);
      expect([gotRows, gotScores]).toEqual([
        Array.from(new Int32Array(kernel.memory.buffer, OUT_ROWS, nAbove)),
        Array.from(new Float32Array(kernel.memory.buffer, OUT_SCORES, nAbove)),
      ]);
    }
  });
});

/** Morgan fingerprints (RDKit MinimalLib) of the first `count` molecules of the bundled ZINC15 sample: real ones. */
async function zincFingerprints(count: number): Promise<Uint8Array> {
  const rd = await getRDKit();
  const lines = gunzipSync(
    readFileSync(join(import.meta.dirname, '../../../catalogs/sources/zinc15_sample.tsv.gz')),
  )
    .toString('utf8')
    .split('\n')
    .slice(1, count + 1);
  const out: Uint8Array[] = [];
  for (const line of lines) {
    const fp = withMol(
      rd,
      line.split('\t')[0],
      (m) => new Uint8Array(m.get_morgan_fp_as_uint8array(MORGAN_DETAILS) as Uint8Array),
    );
    if (fp) out.push(fp);
  }
  const all = new Uint8Array(out.length * 256);
  out.forEach((fp, i) => all.set(fp, i * 256));
  return all;
}

describe('scanShardTopK with the screen bound, on real fingerprints', () => {
  let fps: Uint8Array;
  let cat: ReturnType<typeof writeTestCatalog>;
  let shard: ReturnType<typeof loadShardForScan<ReturnType<typeof readTestShard>>>;
  let rows: number;
  let ref: { catalog: string; shard: number; fps: Uint8Array }[];
  const r = rng(23);
  beforeAll(async () => {
    // 6,000 ZINC15 molecules, the RDKit fixture and some random rows (ties: every 7th is a duplicate).
    fps = new Uint8Array([...(await zincFingerprints(6000)), ...fixtureFps(), ...randomFps(700, 41)]);
    cat = writeTestCatalog(join(dir, 'mixed'), 'mixed', fps, fps.length / 256);
    shard = loadShardForScan(cat.shardPath(0), 0, readTestShard);
    rows = shard.rows;
    ref = [{ catalog: 'mixed', shard: 0, fps: cat.sorted }];
  });

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
      const screened = scanShardTopK(shard, q, { k, threshold, mask });
      expect([Array.from(screened.rows), Array.from(screened.scores)]).toEqual([
        Array.from(plain.rows),
        Array.from(plain.scores),
      ]);
      expect(screened.scanned).toBe(plain.scanned);
      expect(plain.touched).toBe(plain.scanned);
      touched += screened.touched;
      scanned += screened.scanned;
      if (!mask) {
        const want = exhaustiveTopK(ref, q, k, threshold);
        expect(Array.from(screened.rows)).toEqual(want.map((h) => h.row));
        expect(Array.from(screened.scores)).toEqual(want.map((h) => Math.fround(h.similarity)));
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
    expect(touched).toBeLessThan(scanned * 0.5);
  });

  it('handles exact duplicates of the query (score 1 ties broken by row)', () => {
    const dup = fps.slice((fps.length / 256 - 1) * 256); // randomFps duplicates every 7th row
    const got = scanShardTopK(shard, dup, { k: 5 });
    const want = exhaustiveTopK(ref, prepareTanimoto(dup), 5);
    expect(Array.from(got.rows)).toEqual(want.map((h) => h.row));
  });
});

describe('search pool with the screen bound', () => {
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
