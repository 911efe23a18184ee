/**
 * Getting shard bytes into kernel memory, and the in-process single-shard scan for job activities.
 * A shard file is read straight into a shared WasmMemory (no intermediate Buffer) and the
 * catalog reader parses a view of it, so the fingerprint and popcount columns the kernel scans are
 * the very bytes Arrow sees.
 */
import type { WasmMemory } from './wasm/wasm-api.ts';
import { openSync, readSync, closeSync, fstatSync } from 'node:fs';
import { popcountOffsets } from './bitbound.ts';
import { createSharedMemory, instantiateKernel, type Kernel } from './kernel.ts';
import { prepareTanimoto, type PreparedQuery } from './query.ts';
import { SLOT, scanTopK, type ScanResult, type ShardRef } from './scan.ts';
import { BLOCK_BYTES } from './wasm/kernel-blocks.ts';

/** The columns of a parsed shard the search needs (structurally the catalog reader's ShardData). */
export interface ShardLike {
  index: number;
  rows: number;
  fingerprints: Uint8Array;
  popcounts: Uint16Array;
}

/** The catalog reader's readShard: parses an Arrow IPC shard file from any Uint8Array without copying fp/popcount. */
export type ReadShard<S extends ShardLike = ShardLike> = (bytes: Uint8Array, index: number) => S;

/** Reads `len` bytes of file `path` into memory at `ptr`, directly into the memory's buffer. */
export function readFileInto(path: string, memory: WasmMemory, ptr: number, len: number): void {
  const fd = openSync(path, 'r');
  try {
    const view = new Uint8Array(memory.buffer, ptr, len);
    let done = 0;
    while (done < len) {
      const n = readSync(fd, view, done, len - done, done);
      if (n === 0) throw new Error(`unexpected end of ${path} after ${done} of ${len} bytes`);
      done += n;
    }
  } finally {
    closeSync(fd);
  }
}

/** File size in bytes. */
export function fileSize(path: string): number {
  const fd = openSync(path, 'r');
  try {
    return fstatSync(fd).size;
  } finally {
    closeSync(fd);
  }
}

interface ScanContext {
  kernel: Kernel;
  slotPtr: number;
  ref: ShardRef;
}

const kernels = new WeakMap<WasmMemory, Kernel>();
const slotOf = new WeakMap<ArrayBufferLike, { memory: WasmMemory; slotPtr: number; blkPtr: number }>();
const contexts = new WeakMap<ShardLike, ScanContext>();

function kernelFor(memory: WasmMemory): Kernel {
  let k = kernels.get(memory);
  if (!k) kernels.set(memory, (k = instantiateKernel(memory)));
  return k;
}

/**
 * Loads one shard file into a private kernel memory (one scratch slot + the file + room for its row
 * screens) and parses it with `readShard`. The result scans in place with scanShardTopK: the file
 * is read once, never copied.
 */
export function loadShardForScan<S extends ShardLike>(
  path: string,
  index: number,
  readShard: ReadShard<S>,
): S {
  const len = fileSize(path);
  // A shard holds at most len / 256 rows; pages never touched cost no resident memory.
  const blkPtr = Math.ceil((SLOT.bytes + len) / 64) * 64;
  const memory = createSharedMemory(blkPtr + Math.floor(len / 256) * BLOCK_BYTES);
  readFileInto(path, memory, SLOT.bytes, len);
  const buffer = memory.buffer;
  slotOf.set(buffer, { memory, slotPtr: 0, blkPtr });
  return readShard(new Uint8Array(buffer, SLOT.bytes, len), index);
}

function contextFor(shard: ShardLike): ScanContext {
  let ctx = contexts.get(shard);
  if (ctx) return ctx;
  const offsets = popcountOffsets(shard.popcounts);
  const home = slotOf.get(shard.fingerprints.buffer);
  if (home && shard.popcounts.buffer === shard.fingerprints.buffer) {
    const ref = {
      fpPtr: shard.fingerprints.byteOffset,
      pcPtr: shard.popcounts.byteOffset,
      rows: shard.rows,
      offsets,
      blkPtr: home.blkPtr,
    };
    ctx = { kernel: kernelFor(home.memory), slotPtr: home.slotPtr, ref };
  } else {
    // Not loaded by loadShardForScan (e.g. parsed from a Buffer): copy the two columns once.
    const fpBytes = shard.rows * 256;
    const fpPtr = SLOT.bytes;
    const pcPtr = fpPtr + fpBytes;
    const blkPtr = Math.ceil((pcPtr + shard.rows * 2) / 64) * 64;
    const memory = createSharedMemory(blkPtr + shard.rows * BLOCK_BYTES + 8);
    new Uint8Array(memory.buffer, fpPtr, fpBytes).set(shard.fingerprints.subarray(0, fpBytes));
    new Uint16Array(memory.buffer, pcPtr, shard.rows).set(shard.popcounts.subarray(0, shard.rows));
    ctx = { kernel: kernelFor(memory), slotPtr: 0, ref: { fpPtr, pcPtr, rows: shard.rows, offsets, blkPtr } };
  }
  // Row screens once per shard (the kernel reads 256 bytes per row: a few ms per 100k rows).
  ctx.kernel.blockBits(ctx.ref.fpPtr, 0, ctx.ref.rows, ctx.ref.blkPtr!);
  contexts.set(shard, ctx);
  return ctx;
}

export interface ShardScanOptions {
  /** Rows wanted. */
  k: number;
  /** Rows below this similarity are never returned. */
  threshold?: number;
  /** A k-th score already reached elsewhere (inclusive): rows below it are skipped. */
  floor?: number;
  /** Per shard row: 0 excludes the row (masked k-NN). */
  mask?: Uint8Array;
  /** false turns the block-popcount bound off (same results; for benchmarks). Default true. */
  blockBound?: boolean;
}

/**
 * Exact top-k rows of one shard for a query fingerprint (256 bytes) or a prepared query, on the
 * calling thread: rows sorted by (similarity desc, row asc), similarity >= threshold when given.
 * `floor` (optional, inclusive) is a k-th score already reached on other shards: rows below it
 * are skipped, which lets BitBound prune more; the merged result stays exact. Also reports how
 * many rows were scored. `mask` (optional, indexed by shard row) excludes rows whose byte is 0 from
 * the result, exactly (masked k-NN). `opts.blockBound: false` turns the screen bound off (same results,
 * for benchmarks); it is on by default. For job activities and selection threads that scan shard by
 * shard and merge with mergeTopK. Synchronous and CPU-bound: call it from a worker, never from an
 * API event loop.
 */
export function scanShardTopK(
  shard: ShardLike,
  query: Uint8Array | PreparedQuery,
  opts: ShardScanOptions,
): ScanResult {
  const { k, threshold, floor, mask, blockBound } = opts;
  if (mask && mask.length < shard.rows)
    throw new RangeError(`mask has ${mask.length} entries for ${shard.rows} rows`);
  const ctx = contextFor(shard);
  const q = query instanceof Uint8Array ? prepareTanimoto(query) : query;
  return scanTopK(ctx.kernel, ctx.slotPtr, ctx.ref, q, { k, threshold, floor, mask, blockBound });
}
