/**
 * Seeded pseudo-random numbers for reproducible sampling: splitmix32 seeds xoshiro128**.
 * Same seed ⇒ same sequence, on every platform (pure 32-bit integer arithmetic).
 */

function splitmix32(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
}

/** A generator of uint32 values seeded by `seed` (an integer in [0, 2^32)). */
export function createPrng(seed: number): () => number {
  const sm = splitmix32(seed);
  let a = sm(),
    b = sm(),
    c = sm(),
    d = sm();
  return () => {
    const result = Math.imul(((Math.imul(b, 5) << 7) | (Math.imul(b, 5) >>> 25)) >>> 0, 9) >>> 0;
    const t = (b << 9) >>> 0;
    c ^= a;
    d ^= b;
    b ^= c;
    a ^= d;
    c ^= t;
    d = ((d << 11) | (d >>> 21)) >>> 0;
    a >>>= 0;
    b >>>= 0;
    c >>>= 0;
    return result;
  };
}

/** A uniform integer in [0, n) without modulo bias. */
export function nextBelow(next: () => number, n: number): number {
  if (n <= 0) throw new Error('n must be positive');
  const limit = Math.floor(0x1_0000_0000 / n) * n;
  for (;;) {
    const v = next();
    if (v < limit) return v % n;
  }
}

/**
 * `count` distinct row indices drawn from `rows` (or 0..n-1) in draw order: a partial Fisher-Yates
 * shuffle driven by the seed. Same seed and same population ⇒ same rows in the same order.
 */
export function sampleIndices(n: number, count: number, seed: number, rows?: Int32Array): Int32Array {
  const pool = rows ? Int32Array.from(rows) : Int32Array.from({ length: n }, (_, i) => i);
  const k = Math.min(count, pool.length);
  const next = createPrng(seed);
  for (let i = 0; i < k; i++) {
    const j = i + nextBelow(next, pool.length - i);
    const t = pool[i];
    pool[i] = pool[j];
    pool[j] = t;
  }
  return pool.slice(0, k);
}
