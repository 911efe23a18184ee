/**
 * Raw kernel figures on one thread, all over the same bytes in the same wasm memory, in rounds
 * that alternate every measurement so each sees the same machine load (shared machine):
 *
 * - native ceiling: the AVX2 read loop (native/read-loop.c, 32-byte loads) over the fingerprint
 *   bytes, in this process (skipped with a message when gcc is absent);
 * - wasm ceiling: `read_or`, the same loop with wasm's 16-byte loads;
 * - full scan: `tanimoto_above` over every row with a minimum of 2 (nothing qualifies), reading the
 *   256 fingerprint and 2 popcount bytes of every row (258 B/row);
 * - screened scan: every row's 32-byte screen read (`screen_rows`, no BitBound band skipping), and
 *   fingerprints only where the screen bound admits the threshold (`tanimoto_rows`), for real
 *   queries at their own k-th best score (what a k-NN scan ends with). Reported as the raw read rate
 *   (bytes actually read per second) and as effective rows/s, i.e. rows covered per second, and
 *   rows/s x 258 B as the rate a scan reading every fingerprint would need to match it.
 *
 * Times are process CPU time (this thread is the only busy one), so time-sharing with other
 * processes on a loaded machine does not distort them; wall time is recorded too.
 */
import { minIntersection, popcountOffsets } from '../../engine/search/bitbound.ts';
import { createSharedMemory, instantiateKernel } from '../../engine/search/kernel.ts';
import { popcountOf, queryPlanesJs } from '../../engine/search/kernel-js.ts';
import { CHUNK_ROWS, SLOT } from '../../engine/search/scan.ts';
import { BLOCK_BYTES } from '../../engine/search/wasm/kernel-blocks.ts';
import type { NativeReader } from './native-ceiling.ts';

/** Process CPU seconds (user + system) since `since`. */
export function cpuSeconds(since: NodeJS.CpuUsage): number {
  const u = process.cpuUsage(since);
  return (u.user + u.system) / 1e6;
}

/** GB/s (or rows/s) per round, and their median and spread. */
export interface Series {
  rounds: number[];
  median: number;
  min: number;
  max: number;
}

function series(xs: number[]): Series {
  const s = [...xs].sort((a, b) => a - b);
  return { rounds: xs, median: s[s.length >> 1], min: s[0], max: s[s.length - 1] };
}

export interface KernelFigures {
  rows: number;
  /** Native AVX2 read loop, GB/s (undefined when it could not be built). */
  nativeGBs?: Series;
  nativeSkipped?: string;
  /** wasm read_or, GB/s. */
  wasmReadGBs: Series;
  /** Full scan, GB/s of the 258 bytes per row it reads, and fingerprints per second. */
  scanGBs: Series;
  scanFpsPerSec: Series;
  /** Full scan / native, per round (same round), and full scan / wasm read. */
  scanOverNative?: Series;
  scanOverWasm: Series;
  /** Screened scan: bytes actually read per second (GB/s), rows covered per second, rows/s x 258 B (GB/s) / native. */
  screenedReadGBs: Series;
  screenedRowsPerSec: Series;
  screenedEffectiveGBs: Series;
  screenedOverNative?: Series;
  /** Share of rows whose fingerprint the screened scan read. */
  screenedTouched: number;
  thresholds: number[];
}

/**
 * Runs `reps` rounds over `sorted` (rows x 256 bytes, popcount-sorted). `queries` are rows of
 * `sorted` with their k-th best score, the threshold of the screened scan.
 */
export function kernelFigures(
  sorted: Uint8Array,
  queries: { fp: Uint8Array; min: number }[],
  native: NativeReader | string,
  reps = 5,
): KernelFigures {
  const n = sorted.length / 256;
  const fpPtr = SLOT.bytes;
  const pcPtr = fpPtr + sorted.length;
  const scrPtr = Math.ceil((pcPtr + n * 2) / 64) * 64;
  const kernel = instantiateKernel(createSharedMemory(scrPtr + n * BLOCK_BYTES + 64));
  const fpView = new Uint8Array(kernel.memory.buffer, fpPtr, sorted.length);
  fpView.set(sorted);
  const pcs = new Uint16Array(kernel.memory.buffer, pcPtr, n);
  for (let i = 0; i < n; i++) pcs[i] = popcountOf(sorted, i);
  kernel.blockBits(fpPtr, 0, n, scrPtr);
  const offsets = popcountOffsets(pcs);
  const readBytes = Math.floor(sorted.length / 256) * 256;
  const timed = (f: () => void): number => {
    const t = process.cpuUsage();
    f();
    return cpuSeconds(t);
  };
  const fullScan = (): void => {
    new Uint8Array(kernel.memory.buffer, SLOT.query, 256).set(sorted.subarray(0, 256));
    const a = pcs[0];
    for (let s = 0; s < n; s += CHUNK_ROWS)
      kernel.scoreAbove(
        SLOT.query,
        fpPtr,
        pcPtr,
        s,
        Math.min(n, s + CHUNK_ROWS),
        a,
        2,
        SLOT.rows,
        SLOT.scores,
      );
  };
  let touched = 0;
  const screened = (q: { fp: Uint8Array; min: number }): void => {
    const planes = queryPlanesJs(q.fp);
    new Uint8Array(kernel.memory.buffer, SLOT.query, 256).set(q.fp);
    new Uint8Array(kernel.memory.buffer, SLOT.queryBlocks, planes.planes.length).set(planes.planes);
    const a = popcountOf(q.fp);
    for (let b = 0; b < offsets.length - 1; b++) {
      const need = minIntersection(a, b, q.min);
      for (let s = offsets[b]; s < offsets[b + 1]; s += CHUNK_ROWS) {
        const e = Math.min(offsets[b + 1], s + CHUNK_ROWS);
        const cand = kernel.screenRows(
          planes.count,
          scrPtr,
          SLOT.queryBlocks,
          s,
          e,
          need,
          planes.weight,
          SLOT.rows,
        );
        kernel.scoreRows(SLOT.query, fpPtr, pcPtr, SLOT.rows, cand, a, q.min, SLOT.scores);
        touched += cand;
      }
    }
  };
  const r = { native: [] as number[], wasm: [] as number[], scan: [] as number[], scr: [] as number[] };
  const scrRead: number[] = [];
  const ratio = { scanNative: [] as number[], scanWasm: [] as number[], scrNative: [] as number[] };
  for (let rep = 0; rep < reps; rep++) {
    const nat =
      typeof native === 'string'
        ? undefined
        : readBytes / timed(() => native.readAvx2(fpView.subarray(0, readBytes))) / 1e9;
    const wasm = readBytes / timed(() => kernel.readOr(fpPtr, readBytes)) / 1e9;
    const scan = (n * 258) / timed(fullScan) / 1e9;
    touched = 0;
    const t = timed(() => queries.forEach(screened));
    const rowsPerSec = (n * queries.length) / t;
    scrRead.push((n * queries.length * BLOCK_BYTES + touched * 258) / t / 1e9);
    if (nat !== undefined) r.native.push(nat);
    r.wasm.push(wasm);
    r.scan.push(scan);
    r.scr.push(rowsPerSec);
    if (nat !== undefined) {
      ratio.scanNative.push(scan / nat);
      ratio.scrNative.push((rowsPerSec * 258) / 1e9 / nat);
    }
    ratio.scanWasm.push(scan / wasm);
  }
  return {
    rows: n,
    nativeGBs: r.native.length ? series(r.native) : undefined,
    nativeSkipped: typeof native === 'string' ? native : undefined,
    wasmReadGBs: series(r.wasm),
    scanGBs: series(r.scan),
    scanFpsPerSec: series(r.scan.map((g) => (g * 1e9) / 258)),
    scanOverNative: ratio.scanNative.length ? series(ratio.scanNative) : undefined,
    scanOverWasm: series(ratio.scanWasm),
    screenedReadGBs: series(scrRead),
    screenedRowsPerSec: series(r.scr),
    screenedEffectiveGBs: series(r.scr.map((x) => (x * 258) / 1e9)),
    screenedOverNative: ratio.scrNative.length ? series(ratio.scrNative) : undefined,
    screenedTouched: touched / (n * queries.length),
    thresholds: queries.map((q) => q.min),
  };
}
