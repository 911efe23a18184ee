/**
 * Raw kernel figures on one thread: this machine's single-core read bandwidth (the ceiling) and
 * the Tanimoto kernel's full-scan throughput over the same bytes in the same wasm memory.
 *
 * Bandwidth: `read_or`, a wasm loop of 16-byte loads OR-ed into four accumulators over a buffer
 * of all the fingerprints (hundreds of MB, far beyond the caches), i.e. the fastest a single
 * thread can stream this memory from wasm. Scan: `tanimoto_above` over every row with a minimum
 * score of 2 (nothing qualifies, so it measures scoring only), reading the 256 fingerprint bytes
 * and 2 popcount bytes of each row. Bandwidth and scan runs alternate so both see the same load
 * on a shared machine; the best of each is reported, and the median of the per-pair ratios.
 * Both are timed in process CPU time (this thread is the only busy one), so time-sharing with
 * other processes on a loaded machine does not distort them; on an idle machine it equals wall time.
 */
import { createSharedMemory, instantiateKernel } from '../../engine/search/kernel.ts';
import { popcountOf } from '../../engine/search/kernel-js.ts';
import { CHUNK_ROWS, SLOT } from '../../engine/search/scan.ts';

/** Process CPU seconds (user + system) since `since`. */
export function cpuSeconds(since: NodeJS.CpuUsage): number {
  const u = process.cpuUsage(since);
  return (u.user + u.system) / 1e6;
}

export interface KernelFigures {
  bandwidthGBs: number;
  scanGBs: number;
  scanFpsPerSec: number;
  medianRatio: number;
}

/** Runs `reps` alternating bandwidth / full-scan passes over `sorted` (rows x 256 bytes). */
export function kernelFigures(sorted: Uint8Array, reps = 5): KernelFigures {
  const n = sorted.length / 256;
  const fpPtr = SLOT.bytes;
  const pcPtr = fpPtr + sorted.length;
  const kernel = instantiateKernel(createSharedMemory(pcPtr + n * 2 + 64));
  new Uint8Array(kernel.memory.buffer, fpPtr, sorted.length).set(sorted);
  const pcs = new Uint16Array(kernel.memory.buffer, pcPtr, n);
  for (let i = 0; i < n; i++) pcs[i] = popcountOf(sorted, i);
  new Uint8Array(kernel.memory.buffer, SLOT.query, 256).set(sorted.subarray(0, 256));
  const a = popcountOf(sorted, 0);
  const readBytes = Math.floor(sorted.length / 128) * 128;
  const scanBytes = n * 258;
  let bw = 0;
  let scan = 0;
  const ratios: number[] = [];
  for (let r = 0; r < reps; r++) {
    let t = process.cpuUsage();
    kernel.readOr(fpPtr, readBytes);
    const b = readBytes / cpuSeconds(t) / 1e9;
    t = process.cpuUsage();
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
    const sc = scanBytes / cpuSeconds(t) / 1e9;
    bw = Math.max(bw, b);
    scan = Math.max(scan, sc);
    ratios.push(sc / b);
  }
  ratios.sort((x, y) => x - y);
  return {
    bandwidthGBs: bw,
    scanGBs: scan,
    scanFpsPerSec: (scan * 1e9) / 258,
    medianRatio: ratios[ratios.length >> 1],
  };
}
