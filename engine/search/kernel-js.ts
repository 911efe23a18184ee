/**
 * Plain-JS reference kernels: the definitions the WebAssembly kernel must reproduce bit for bit
 * (tests compare them). Also the fallback where WebAssembly is unavailable. Slow on purpose:
 * clarity over speed.
 */

export const FP_BYTES = 256;
export const FP_BITS = 2048;

const POP8 = Uint8Array.from({ length: 256 }, (_, i) => {
  let n = 0;
  for (let v = i; v; v &= v - 1) n++;
  return n;
});

/** Number of set bits of fingerprint `row` (rows of 256 bytes) in `fps`. */
export function popcountOf(fps: Uint8Array, row = 0): number {
  let n = 0;
  const o = row * FP_BYTES;
  for (let i = 0; i < FP_BYTES; i++) n += POP8[fps[o + i]];
  return n;
}

/** Block popcounts of row `row`: `blocks` counts per row, block j = bytes [j·256/blocks, (j+1)·256/blocks). The reference for block_popcounts. */
export function blockPopcountsJs(fps: Uint8Array, row: number, blocks: number): Uint8Array {
  const out = new Uint8Array(blocks);
  const per = FP_BYTES / blocks;
  const o = row * FP_BYTES;
  for (let i = 0; i < FP_BYTES; i++) out[Math.floor(i / per)] += POP8[fps[o + i]];
  return out;
}

/** Tanimoto c / (a + b - c) rounded to f32; 0 for two empty fingerprints (RDKit's convention). */
export function tanimotoFromCounts(a: number, b: number, c: number): number {
  const d = a + b - c;
  return d === 0 ? 0 : Math.fround(c / d);
}

/** Tanimoto between `query` (256 bytes) and row `row` of `fps`, as f32. */
export function tanimotoJs(query: Uint8Array, fps: Uint8Array, row: number): number {
  let c = 0;
  let b = 0;
  let a = 0;
  const o = row * FP_BYTES;
  for (let i = 0; i < FP_BYTES; i++) {
    c += POP8[query[i] & fps[o + i]];
    b += POP8[fps[o + i]];
    a += POP8[query[i]];
  }
  return tanimotoFromCounts(a, b, c);
}

/** Scores of rows [start, end) against `query`: the reference for the kernel's scoreRange. */
export function scoreRangeJs(query: Uint8Array, fps: Uint8Array, start: number, end: number): Float32Array {
  const out = new Float32Array(Math.max(0, end - start));
  for (let i = start; i < end; i++) out[i - start] = tanimotoJs(query, fps, i);
  return out;
}

/**
 * Continuous Tanimoto of row `row` against weights w (f64, one per bit, bit i = byte i>>3, bit
 * i&7): s = sum of w over the row's set bits in ascending bit order, score = f32(s / (b + w2 - s)),
 * 0 when that denominator is 0. The reference for the kernel's centroidAbove.
 */
export function centroidScoreJs(
  weights: Float64Array,
  weightsSq: number,
  fps: Uint8Array,
  row: number,
): number {
  let s = 0;
  let b = 0;
  const o = row * FP_BYTES;
  for (let i = 0; i < FP_BYTES; i++) {
    const v = fps[o + i];
    for (let bit = 0; bit < 8; bit++) {
      if (v & (1 << bit)) {
        s += weights[i * 8 + bit];
        b++;
      }
    }
  }
  const d = b + weightsSq - s;
  return d === 0 ? 0 : Math.fround(s / d);
}
