/**
 * Loads a catalog's shard files into shared kernel memories ("arenas") for the pool. Arena
 * layout: one scratch slot per worker thread, then per shard its file followed by its row screens
 * (BLOCK_BYTES per row, computed here by the kernel at load: no catalog format change),
 * each 64-byte aligned. A wasm32 memory holds at most 4 GiB, so large catalogs span several arenas.
 */
import type { WasmMemory } from './wasm/wasm-api.ts';
import { DomainError } from '../../platform/errors.ts';
import { popcountOffsets } from './bitbound.ts';
import { createSharedMemory, instantiateKernel } from './kernel.ts';
import { BLOCK_BYTES } from './wasm/kernel-blocks.ts';
import { SLOT, type ShardRef } from './scan.ts';
import { fileSize, readFileInto, type ReadShard, type ShardLike } from './shard-memory.ts';

/** What the pool needs of a catalog (structurally the catalog reader's Catalog). */
export interface CatalogLike {
  dir: string;
  manifest: { id: string; shards: { rows: number }[] };
  shardPath(i: number): string;
}

export interface LoadedShard<S extends ShardLike = ShardLike> {
  index: number;
  arena: number;
  ref: ShardRef;
  /** The parsed shard (a view into the arena), for reading result rows. */
  data: S;
  popcountMin: number;
  popcountMax: number;
}

export interface Arena {
  id: number;
  memory: WasmMemory;
  bytes: number;
}

/** Usable bytes per arena: below the 4 GiB wasm32 limit, leaving room for the slots. */
export const ARENA_MAX_BYTES = 3.5 * 2 ** 30;
const align64 = (n: number): number => Math.ceil(n / 64) * 64;

/**
 * Reads every shard of `catalog` straight into new arenas and parses each with `readShard`.
 * Throws DomainError('internal') if the reader copied the fingerprint or popcount column (the
 * kernel must scan the bytes in the arena) or a shard's row count differs from the manifest.
 */
export function loadCatalogArenas<S extends ShardLike>(
  catalog: CatalogLike,
  readShard: ReadShard<S>,
  slots: number,
  firstArenaId: number,
): { arenas: Arena[]; shards: LoadedShard<S>[] } {
  const files = catalog.manifest.shards.map((_, i) => fileSize(catalog.shardPath(i)));
  // Room per shard: the file, then its row screens.
  const sizes = files.map((f, i) => align64(f) + catalog.manifest.shards[i].rows * BLOCK_BYTES);
  const groups: number[][] = [];
  let used = Infinity;
  sizes.forEach((size, i) => {
    if (align64(size) > ARENA_MAX_BYTES)
      throw new DomainError(
        'internal',
        `shard ${i} of ${catalog.manifest.id} (${size} bytes) exceeds one kernel memory`,
      );
    if (used + align64(size) > ARENA_MAX_BYTES) {
      groups.push([]);
      used = 0;
    }
    groups[groups.length - 1].push(i);
    used += align64(size);
  });
  const arenas: Arena[] = [];
  const shards: LoadedShard<S>[] = [];
  groups.forEach((group, g) => {
    const base = align64(slots * SLOT.bytes);
    const bytes = base + group.reduce((s, i) => s + align64(sizes[i]), 0);
    const memory = createSharedMemory(bytes);
    const kernel = instantiateKernel(memory);
    const id = firstArenaId + g;
    arenas.push({ id, memory, bytes });
    const buffer = memory.buffer;
    let ptr = base;
    for (const i of group) {
      readFileInto(catalog.shardPath(i), memory, ptr, files[i]);
      const data = readShard(new Uint8Array(buffer, ptr, files[i]), i);
      if (data.fingerprints.buffer !== buffer || data.popcounts.buffer !== buffer) {
        throw new DomainError(
          'internal',
          `reader copied the fingerprint columns of shard ${i} of ${catalog.manifest.id}; the scan needs zero-copy views`,
        );
      }
      if (data.rows !== catalog.manifest.shards[i].rows) {
        throw new DomainError(
          'internal',
          `shard ${i} of ${catalog.manifest.id} has ${data.rows} rows, manifest says ${catalog.manifest.shards[i].rows}`,
        );
      }
      const blkPtr = ptr + align64(files[i]);
      kernel.blockBits(data.fingerprints.byteOffset, 0, data.rows, blkPtr);
      const ref: ShardRef = {
        fpPtr: data.fingerprints.byteOffset,
        pcPtr: data.popcounts.byteOffset,
        rows: data.rows,
        offsets: popcountOffsets(data.popcounts.subarray(0, data.rows)),
        blkPtr,
      };
      const pc = data.popcounts;
      shards.push({
        index: i,
        arena: id,
        ref,
        data,
        popcountMin: data.rows ? pc[0] : 0,
        popcountMax: data.rows ? pc[data.rows - 1] : 0,
      });
      ptr += align64(sizes[i]);
    }
  });
  return { arenas, shards };
}
