/**
 * The fleet benchmark's catalog at sizes whose fingerprint file would not fit one buffer (20M rows
 * are 5.1 GB: over Node's 2 GiB readFile limit, and make_fps.py's bit matrix would need 39 GB):
 * the real Morgan fingerprints (bench/out/fps-real.u8, made by make_fps.py) first, then
 * bit-perturbed copies made as make_fps.py makes them (a seeded random real row with one set bit
 * moved to a random unset position: same popcount, Tanimoto (b-1)/(b+1) to its original), written
 * shard by shard in popcount order with testkit/format-catalog.ts's writeFormatShard (same
 * columns, ids `<id>-<row>`; writeFormatManifest joins the parts). Memory: the real rows (205 MB), two n-row index arrays and one shard.
 * The copies come from a different random stream than make_fps.py's, so they are not the same rows.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CatalogManifest } from '../../engine/catalog/schema.ts';
import { popcountOf } from '../../engine/search/kernel-js.ts';
import { writeFormatManifest, writeFormatShard } from '../../testkit/format-catalog.ts';

/** Index of the r-th (0-based) bit equal to `want` in a 256-byte fingerprint (bit order little-endian). */
function nthBit(fp: Uint8Array, r: number, want: 0 | 1): number {
  for (let b = 0; b < 256; b++) {
    const byte = want ? fp[b] : ~fp[b] & 0xff;
    let c = 0;
    for (let x = byte; x; x &= x - 1) c++;
    if (r < c) {
      for (let bit = 0; bit < 8; bit++) if ((byte >> bit) & 1 && r-- === 0) return b * 8 + bit;
    }
    r -= c;
  }
  return -1;
}

/**
 * Writes `n` rows (real + perturbed copies) to dir as catalog `id`, shards of `shardRows`. With
 * `part` = [p, of], writes only the shards whose index is p mod `of` and returns their entries
 * without the manifest (so `of` processes can share the work; writeFormatManifest joins them).
 */
export function writeBigCatalog(
  realPath: string,
  dir: string,
  id: string,
  n: number,
  shardRows: number,
  part?: [number, number],
): CatalogManifest['shards'] {
  const real = new Uint8Array(readFileSync(realPath));
  const nReal = real.length / 256;
  const realPc = Uint16Array.from({ length: nReal }, (_, i) => popcountOf(real, i));
  let seed = 42;
  const rand = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  // Row i < nReal is real row i; row i >= nReal copies real row src[i - nReal].
  const src = Int32Array.from({ length: Math.max(0, n - nReal) }, () => Math.floor(rand() * nReal));
  const rows = Math.min(n, nReal);
  const pcOf = (i: number) => (i < rows ? realPc[i] : realPc[src[i - nReal]]);
  // Stable counting sort by popcount: the (popcount, row) order writeFormatCatalog uses.
  const start = new Int32Array(2050);
  for (let i = 0; i < n; i++) start[pcOf(i) + 1]++;
  for (let p = 1; p < start.length; p++) start[p] += start[p - 1];
  const order = new Int32Array(n);
  for (let i = 0; i < n; i++) order[start[pcOf(i)]++] = i;
  const rowFp = (i: number, out: Uint8Array) => {
    if (i < nReal) return out.set(real.subarray(i * 256, i * 256 + 256));
    const s = src[i - nReal];
    out.set(real.subarray(s * 256, s * 256 + 256));
    const pc = realPc[s];
    if (!pc) return;
    // Per-row seed, so a copy does not depend on the order rows are written in.
    let h = Math.imul(i ^ 0x9e3779b9, 0x85ebca6b) >>> 0;
    const next = () => (h = (Math.imul(h, 1103515245) + 12345) >>> 0) / 2 ** 32;
    const on = nthBit(out, Math.floor(next() * pc), 1);
    const off = nthBit(out, Math.floor(next() * (2048 - pc)), 0);
    out[on >> 3] &= ~(1 << (on & 7));
    out[off >> 3] |= 1 << (off & 7);
  };
  mkdirSync(dir, { recursive: true });
  const shards: CatalogManifest['shards'] = [];
  for (let s = 0; s < n; s += shardRows) {
    if (part && (s / shardRows) % part[1] !== part[0]) {
      shards.push(null as unknown as CatalogManifest['shards'][number]);
      continue;
    }
    const e = Math.min(n, s + shardRows);
    const m = e - s;
    const fps = new Uint8Array(m * 256);
    const popcounts = new Uint16Array(m);
    for (let j = 0; j < m; j++) {
      rowFp(order[s + j], fps.subarray(j * 256, j * 256 + 256));
      popcounts[j] = pcOf(order[s + j]);
    }
    const ids = Array.from({ length: m }, (_, j) => `${id}-${order[s + j]}`);
    shards.push(writeFormatShard(dir, shards.length, ids, fps, popcounts));
  }
  if (!part) writeFormatManifest(dir, id, n, shards);
  return shards;
}

// `node big-catalog.ts <fps-real.u8> <dir> <id> <n> <part> <of>`: one process's share of the shards,
// their entries to <dir>/part-<part>.json.
if (process.argv[1] === import.meta.filename) {
  const [realPath, dir, id, n, p, of] = process.argv.slice(2);
  const shards = writeBigCatalog(realPath, dir, id, Number(n), 131_072, [Number(p), Number(of)]);
  writeFileSync(join(dir, `part-${p}.json`), JSON.stringify(shards));
}
