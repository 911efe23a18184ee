/**
 * The WebAssembly search kernel bound to one memory. Every thread instantiates the same compiled
 * module on the same shared WasmMemory, so shard bytes loaded once are scanned in place by
 * all of them. Pointers are byte offsets into that memory.
 */
import { Wasm, type WasmMemory, type WasmModule } from './wasm/wasm-api.ts';
import { kernelModuleBytes } from './wasm/kernel-source.ts';

export interface Kernel {
  readonly memory: WasmMemory;
  /** out[i - start] = Tanimoto(query, row i) as f32 for rows [start, end); pc is the popcount column, a the query popcount. */
  scoreRange(
    queryPtr: number,
    fpPtr: number,
    pcPtr: number,
    start: number,
    end: number,
    queryPopcount: number,
    outScoresPtr: number,
  ): void;
  /** Writes the rows of [start, end) scoring >= minScore (f32 compare) with their scores, in row order; returns the count. Output room: end - start entries. */
  scoreAbove(
    queryPtr: number,
    fpPtr: number,
    pcPtr: number,
    start: number,
    end: number,
    queryPopcount: number,
    minScore: number,
    outRowsPtr: number,
    outScoresPtr: number,
  ): number;
  /** Same as scoreAbove for the continuous Tanimoto against f64 weights (see centroid.ts). */
  centroidAbove(
    weightsPtr: number,
    weightsSq: number,
    fpPtr: number,
    pcPtr: number,
    start: number,
    end: number,
    minScore: number,
    outRowsPtr: number,
    outScoresPtr: number,
  ): number;
  /** Writes BLOCK_BYTES block popcounts (u8) per row of [start, end) at out + row * BLOCK_BYTES (see wasm/kernel-blocks.ts). */
  blockPopcounts(fpPtr: number, start: number, end: number, outPtr: number): void;
  /**
   * scoreAbove with the block bound (see wasm/kernel-blocks.ts): reads a row's fingerprint only when
   * the sum of min(query block count, row block count) is >= minCommon, which the caller must
   * derive from minScore (minIntersection) so the output equals scoreAbove's. Returns
   * n | (candidates << 16); end - start < 65536.
   */
  scoreAboveBlocks(
    queryPtr: number,
    fpPtr: number,
    pcPtr: number,
    blkPtr: number,
    queryBlkPtr: number,
    start: number,
    end: number,
    queryPopcount: number,
    minScore: number,
    minCommon: number,
    outRowsPtr: number,
    outScoresPtr: number,
  ): number;
  /** ORs [ptr, ptr + len) (len a multiple of 128); used to measure read bandwidth. */
  readOr(ptr: number, len: number): bigint;
}

let compiled: WasmModule | undefined;

/** The compiled kernel module, built once per thread (it is a few kilobytes, compiling is sub-millisecond). */
export function kernelModule(): WasmModule {
  compiled ??= new Wasm.Module(kernelModuleBytes());
  return compiled;
}

/** Instantiates the kernel on `memory` (must be shared; a wasm32 memory of at most 65536 pages). */
export function instantiateKernel(memory: WasmMemory): Kernel {
  const inst = new Wasm.Instance(kernelModule(), { env: { memory } });
  const ex = inst.exports as Record<string, (...args: number[]) => number>;
  const readOr = inst.exports.read_or as unknown as (ptr: number, len: number) => bigint;
  return {
    memory,
    scoreRange: ex.tanimoto_range as Kernel['scoreRange'],
    scoreAbove: ex.tanimoto_above as Kernel['scoreAbove'],
    centroidAbove: ex.centroid_above as Kernel['centroidAbove'],
    blockPopcounts: ex.block_popcounts as Kernel['blockPopcounts'],
    scoreAboveBlocks: ex.tanimoto_above_blocks as Kernel['scoreAboveBlocks'],
    readOr,
  };
}

/** A shared memory of `bytes` (rounded up to 64 KiB pages), fixed size so views never detach. */
export function createSharedMemory(bytes: number): WasmMemory {
  const pages = Math.max(1, Math.ceil(bytes / 65536));
  if (pages > 65536) throw new RangeError(`a kernel memory holds at most 4 GiB, asked for ${bytes} bytes`);
  return new Wasm.Memory({ initial: pages, maximum: pages, shared: true });
}
