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
  /** Writes each row's screen (BLOCK_BYTES, one bit per non-zero fingerprint byte) of [start, end) at out + row * BLOCK_BYTES (see wasm/kernel-blocks.ts). */
  blockBits(fpPtr: number, start: number, end: number, outPtr: number): void;
  /**
   * Appends to outRows the rows of [start, end) whose screen bound (query planes at planesPtr, 1-3
   * of them, the third weighted by `weight`) reaches minCommon; returns how many. The caller
   * derives minCommon from the minimum score (minIntersection), so no row scoring at least that
   * minimum is left out.
   */
  screenRows(
    planes: 1 | 2 | 3,
    screenPtr: number,
    planesPtr: number,
    start: number,
    end: number,
    minCommon: number,
    weight: number,
    outRowsPtr: number,
  ): number;
  /** Scores the `count` rows listed at rowsPtr and keeps in place those scoring >= minScore, scores at outScoresPtr; returns how many. */
  scoreRows(
    queryPtr: number,
    fpPtr: number,
    pcPtr: number,
    rowsPtr: number,
    count: number,
    queryPopcount: number,
    minScore: number,
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
  const screens = [ex.screen_rows_1, ex.screen_rows_2, ex.screen_rows_3];
  const readOr = inst.exports.read_or as unknown as (ptr: number, len: number) => bigint;
  return {
    memory,
    scoreRange: ex.tanimoto_range as Kernel['scoreRange'],
    scoreAbove: ex.tanimoto_above as Kernel['scoreAbove'],
    centroidAbove: ex.centroid_above as Kernel['centroidAbove'],
    blockBits: ex.block_bits as Kernel['blockBits'],
    screenRows: (planes, ...args) => screens[planes - 1](...args),
    scoreRows: ex.tanimoto_rows as Kernel['scoreRows'],
    readOr,
  };
}

/** A shared memory of `bytes` (rounded up to 64 KiB pages), fixed size so views never detach. */
export function createSharedMemory(bytes: number): WasmMemory {
  const pages = Math.max(1, Math.ceil(bytes / 65536));
  if (pages > 65536) throw new RangeError(`a kernel memory holds at most 4 GiB, asked for ${bytes} bytes`);
  return new Wasm.Memory({ initial: pages, maximum: pages, shared: true });
}
