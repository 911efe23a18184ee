/**
 * Test shards in the catalog layout (Arrow IPC file, one record batch, columns id, fp
 * FixedSizeBinary(256), popcount Uint16, rows sorted by popcount), plus a reader honouring the
 * catalog reader contract (zero-copy fp/popcount views) so the search tests do not depend on
 * engine/catalog being finished.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  FixedSizeBinary,
  Field,
  Schema,
  Table,
  Uint16,
  Utf8,
  makeData,
  makeVector,
  tableFromIPC,
  tableToIPC,
  vectorFromArray,
  RecordBatch,
  Struct,
} from 'apache-arrow';
import { popcountOf } from '../../../../engine/search/kernel-js.ts';
import type { CatalogLike } from '../../../../engine/search/arena-load.ts';
import type { ShardLike } from '../../../../engine/search/shard-memory.ts';
import fixture from '../../../fixtures/tanimoto-reference.json' with { type: 'json' };

export interface TestShard extends ShardLike {
  table: Table;
}

/** Parses a shard file from any bytes; fp and popcount are views into `bytes` (no copy). */
export function readTestShard(bytes: Uint8Array, index: number): TestShard {
  const table = tableFromIPC(bytes);
  const batch = table.batches[0];
  const fp = batch.getChild('fp')!.data[0];
  const pc = batch.getChild('popcount')!.data[0];
  const fingerprints = (fp.values as Uint8Array).subarray(fp.offset * 256, (fp.offset + fp.length) * 256);
  const popcounts = (pc.values as Uint16Array).subarray(pc.offset, pc.offset + pc.length);
  return { index, rows: batch.numRows, fingerprints, popcounts, table };
}

/** Arrow IPC file bytes of one shard (rows must already be sorted by popcount). */
export function shardBytes(fps: Uint8Array, ids: string[]): Uint8Array {
  const rows = ids.length;
  const pcs = Uint16Array.from({ length: rows }, (_, i) => popcountOf(fps, i));
  const fields = [
    new Field('id', new Utf8()),
    new Field('fp', new FixedSizeBinary(256)),
    new Field('popcount', new Uint16()),
  ];
  const children = [
    vectorFromArray(ids, new Utf8()).data[0],
    makeData({ type: new FixedSizeBinary(256), length: rows, data: fps.slice(0, rows * 256) }),
    makeVector(pcs).data[0],
  ];
  const data = makeData({ type: new Struct(fields), length: rows, nullCount: 0, children });
  return tableToIPC(new Table(new Schema(fields), [new RecordBatch(new Schema(fields), data)]), 'file');
}

/** Sorts fingerprints by popcount (stable) and returns the permutation and sorted bytes. */
export function sortByPopcount(fps: Uint8Array): { order: number[]; sorted: Uint8Array } {
  const n = fps.length / 256;
  const order = Array.from({ length: n }, (_, i) => i).sort(
    (a, b) => popcountOf(fps, a) - popcountOf(fps, b) || a - b,
  );
  const sorted = new Uint8Array(fps.length);
  order.forEach((src, dst) => sorted.set(fps.subarray(src * 256, src * 256 + 256), dst * 256));
  return { order, sorted };
}

/** Writes a catalog of `fps` (any order) split into shards of `shardRows`; returns it as the pool sees it. */
export function writeTestCatalog(
  dir: string,
  id: string,
  fps: Uint8Array,
  shardRows: number,
): CatalogLike & { sorted: Uint8Array } {
  mkdirSync(dir, { recursive: true });
  const { order, sorted } = sortByPopcount(fps);
  const n = order.length;
  const shards: { rows: number; file: string }[] = [];
  for (let s = 0, i = 0; s < n; s += shardRows, i++) {
    const e = Math.min(n, s + shardRows);
    const file = `shard-${String(i).padStart(5, '0')}.arrow`;
    writeFileSync(
      join(dir, file),
      shardBytes(
        sorted.subarray(s * 256, e * 256),
        order.slice(s, e).map((o) => `${id}-${o}`),
      ),
    );
    shards.push({ rows: e - s, file });
  }
  return { dir, manifest: { id, shards }, shardPath: (i) => join(dir, shards[i].file), sorted };
}

/** Seeded PRNG (mulberry32) so failures reproduce. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** n random Morgan-like fingerprints: ~20-80 set bits each, with exact duplicates every 7th row to force ties. */
export function randomFps(n: number, seed: number): Uint8Array {
  const r = rng(seed);
  const out = new Uint8Array(n * 256);
  for (let i = 0; i < n; i++) {
    if (i % 7 === 6) {
      out.copyWithin(i * 256, (i - 3) * 256, (i - 2) * 256);
      continue;
    }
    const bits = 20 + Math.floor(r() * 60);
    for (let j = 0; j < bits; j++) {
      const bit = Math.floor(r() * 2048);
      out[i * 256 + (bit >> 3)] |= 1 << (bit & 7);
    }
  }
  return out;
}

/** The 300 RDKit fingerprints of the committed fixture, as rows of 256 bytes. */
export function fixtureFps(): Uint8Array {
  const out = new Uint8Array(fixture.molecules.length * 256);
  fixture.molecules.forEach((m, i) => {
    for (const bit of m.on_bits) out[i * 256 + (bit >> 3)] |= 1 << (bit & 7);
  });
  return out;
}

export { fixture };
