import { describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { popcountOf } from '../../../engine/search/kernel-js.ts';
import { prepareTanimoto } from '../../../engine/search/query.ts';
import { loadShardForScan, scanShardTopK } from '../../../engine/search/shard-memory.ts';
import { bruteForceKnn } from '../../../engine/selection/library.ts';
import { exhaustiveTopK } from './support/reference.ts';
import { fixtureFps, randomFps, readTestShard, rng, writeTestCatalog } from './support/shards.ts';

const dir = mkdtempSync(join(tmpdir(), 'search-mask-'));

/** A mask keeping roughly `keep` of the rows (seeded). */
function randomMask(rows: number, keep: number, seed: number): Uint8Array {
  const r = rng(seed);
  return Uint8Array.from({ length: rows }, () => (r() < keep ? 1 : 0));
}

describe('masked scanShardTopK', () => {
  const n = 20000;
  const cat = writeTestCatalog(join(dir, 'rand'), 'rand', randomFps(n, 5), n);
  const shard = loadShardForScan(cat.shardPath(0), 0, readTestShard);
  const pcs = Uint16Array.from({ length: n }, (_, i) => popcountOf(cat.sorted, i));
  const r = rng(17);

  it('equals the JS brute-force masked k-NN exactly, for sparse and dense masks', () => {
    for (let trial = 0; trial < 12; trial++) {
      const qi = Math.floor(r() * n);
      const q = cat.sorted.slice(qi * 256, qi * 256 + 256);
      const k = [1, 10, 100, 2000][trial % 4];
      const mask = randomMask(n, [0.001, 0.05, 0.5, 0.95][trial % 4], trial);
      const got = scanShardTopK(shard, q, { k, mask });
      const want = bruteForceKnn(cat.sorted, pcs, q, k, mask);
      expect(got.rows.length).toBe(
        Math.min(
          k,
          mask.reduce((s, v) => s + v, 0),
        ),
      );
      expect(Array.from(got.rows)).toEqual(Array.from(want.rows));
      expect(Array.from(got.scores)).toEqual(Array.from(want.scores));
    }
  });

  it('never returns a masked-out row even when it is the query itself', () => {
    const q = cat.sorted.slice(1234 * 256, 1235 * 256);
    const mask = new Uint8Array(n).fill(1);
    mask[1234] = 0;
    const got = scanShardTopK(shard, q, { k: 50, mask });
    expect(Array.from(got.rows)).not.toContain(1234);
    const unmasked = scanShardTopK(shard, q, { k: 51 });
    expect(Array.from(got.rows)).toEqual(
      Array.from(unmasked.rows)
        .filter((row) => row !== 1234)
        .slice(0, 50),
    );
  });

  it('on real RDKit fingerprints equals the exhaustive scan restricted to the mask', () => {
    const real = writeTestCatalog(join(dir, 'real'), 'real', fixtureFps(), 300);
    const s = loadShardForScan(real.shardPath(0), 0, readTestShard);
    const rows = real.sorted.length / 256;
    const mask = randomMask(rows, 0.3, 99);
    for (let qi = 0; qi < rows; qi += 37) {
      const q = real.sorted.slice(qi * 256, qi * 256 + 256);
      const want = exhaustiveTopK([{ catalog: 'real', shard: 0, fps: real.sorted }], prepareTanimoto(q), rows)
        .filter((h) => mask[h.row])
        .slice(0, 15);
      const got = scanShardTopK(s, q, { k: 15, mask });
      expect(Array.from(got.rows)).toEqual(want.map((h) => h.row));
      expect(Array.from(got.scores)).toEqual(want.map((h) => h.similarity));
    }
  });

  it('rejects a mask shorter than the shard', () => {
    expect(() => scanShardTopK(shard, cat.sorted.slice(0, 256), { k: 5, mask: new Uint8Array(10) })).toThrow(
      RangeError,
    );
  });
});
