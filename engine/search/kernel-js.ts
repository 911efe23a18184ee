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

/** The screen of row `row`: 32 bytes, bit j set when fingerprint byte j is non-zero. The reference for block_bits. */
export function blockBitsJs(fps: Uint8Array, row: number): Uint8Array {
  const out = new Uint8Array(32);
  const o = row * FP_BYTES;
  for (let j = 0; j < FP_BYTES; j++) if (fps[o + j]) out[j >> 3] |= 1 << (j & 7);
  return out;
}

/**
 * The query side of the screen bound: bit planes Q_0, Q_1, Q_2 (32 bytes each, bit j of Q_t set
 * when byte j of the query has more than t bits), how many of them the bound needs (1 to 3) and
 * the weight of Q_2 (max byte popcount - 2, covering every plane above it).
 */
export function queryPlanesJs(query: Uint8Array): { planes: Uint8Array; count: 1 | 2 | 3; weight: number } {
  const planes = new Uint8Array(96);
  let max = 0;
  for (let j = 0; j < FP_BYTES; j++) {
    const c = POP8[query[j]];
    max = Math.max(max, c);
    for (let t = 0; t < Math.min(c, 3); t++) planes[32 * t + (j >> 3)] |= 1 << (j & 7);
  }
  return { planes, count: Math.min(3, Math.max(1, max)) as 1 | 2 | 3, weight: Math.max(0, max - 2) };
}

/** The screen bound p0 + p1 + weight * p2 of a row's screen against query planes: the reference for screen_rows. */
export function screenBoundJs(q: ReturnType<typeof queryPlanesJs>, screen: Uint8Array): number {
  const p = [0, 0, 0];
  for (let t = 0; t < q.count; t++)
    for (let i = 0; i < 32; i++) p[t] += POP8[screen[i] & q.planes[32 * t + i]];
  return p[0] + p[1] + q.weight * p[2];
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
