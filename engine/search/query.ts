/**
 * Prepared queries: what a scan needs besides the shard. A Tanimoto query is one fingerprint; a
 * centroid query ranks rows by the continuous Tanimoto against the mean bit-frequency vector of
 * several fingerprints (definition below). Both carry per-popcount score bounds for BitBound.
 * Plain data, so they cross worker boundaries by structured clone.
 */
import { BANDS, tanimotoBounds } from './bitbound.ts';
import { FP_BITS, FP_BYTES, popcountOf } from './kernel-js.ts';

export const QUERY_KINDS = ['tanimoto', 'centroid'] as const;
export type QueryKind = (typeof QUERY_KINDS)[number];

export interface TanimotoQuery {
  kind: 'tanimoto';
  fp: Uint8Array;
  popcount: number;
  bounds: Float32Array;
}

export interface CentroidQuery {
  kind: 'centroid';
  weights: Float64Array;
  weightsSq: number;
  bounds: Float32Array;
}

export type PreparedQuery = TanimotoQuery | CentroidQuery;

function checkFp(fp: Uint8Array, what: string): void {
  if (!(fp instanceof Uint8Array) || fp.length !== FP_BYTES)
    throw new RangeError(`${what} must be a ${FP_BYTES}-byte Morgan fingerprint (2048 bits)`);
}

/** A Tanimoto query for one 2048-bit fingerprint (256 bytes, RDKit byte layout). Copies the bytes. */
export function prepareTanimoto(fp: Uint8Array): TanimotoQuery {
  checkFp(fp, 'query');
  const a = popcountOf(fp);
  return { kind: 'tanimoto', fp: fp.slice(), popcount: a, bounds: tanimotoBounds(a) };
}

/**
 * A centroid query over n >= 1 fingerprints. Definition: w_j = (number of inputs with bit j set)/n,
 * the mean bit-frequency vector; a row x (bit vector, popcount b) scores the continuous Tanimoto
 * T(x, w) = x·w / (|x|² + |w|² − x·w) = s / (b + W2 − s), with s = Σ_{j∈x} w_j and W2 = Σ w_j².
 * For a single input this is exactly the binary Tanimoto.
 */
export function prepareCentroid(fps: Uint8Array[]): CentroidQuery {
  if (fps.length === 0) throw new RangeError('centroid needs at least one fingerprint');
  const counts = new Float64Array(FP_BITS);
  fps.forEach((fp, i) => {
    checkFp(fp, `queries[${i}]`);
    for (let byte = 0; byte < FP_BYTES; byte++) {
      const v = fp[byte];
      if (v) for (let bit = 0; bit < 8; bit++) if (v & (1 << bit)) counts[byte * 8 + bit]++;
    }
  });
  return prepareWeights(counts.map((c) => c / fps.length));
}

/**
 * A query ranking rows by the continuous Tanimoto s / (b + W2 − s) against any finite weight
 * vector w of 2048 entries (a centroid, or an embedding given by the caller). Bound per popcount
 * b: s ≤ S_b, the sum of the b largest weights, and T increases with s, so
 * T ≤ S_b / (b + W2 − S_b) (b + W2 − S_b ≥ (b + W2) / 2 by Cauchy–Schwarz, so it is never
 * negative); it is widened by a relative 1e-9 so float rounding in the kernel's sum can never
 * exceed it. Copies the weights.
 */
export function prepareWeights(weights: Float64Array): CentroidQuery {
  if (weights.length !== FP_BITS) throw new RangeError(`weights must have ${FP_BITS} entries`);
  const w = Float64Array.from(weights);
  let weightsSq = 0;
  for (const x of w) weightsSq += x * x;
  const sorted = Float64Array.from(w).sort().reverse();
  const bounds = new Float32Array(BANDS);
  let sb = 0;
  for (let b = 0; b < BANDS; b++) {
    if (b > 0) sb += sorted[b - 1];
    const d = b + weightsSq - sb;
    const t = d <= 0 ? 0 : sb / d;
    // widened upwards for negative weights too (t < 0)
    bounds[b] = Math.fround(t + Math.abs(t) * 1e-9);
  }
  return { kind: 'centroid', weights: w, weightsSq, bounds };
}

/**
 * The continuous Tanimoto of one fingerprint against a centroid query as an exact double (the
 * kernel ranks in float32): s / (b + W2 − s), s summed in ascending bit order, 0 when the
 * denominator is 0. Answers report this value, so one pair has one score everywhere.
 */
export function centroidTanimoto(q: CentroidQuery, fp: Uint8Array): number {
  let s = 0;
  let b = 0;
  for (let i = 0; i < FP_BYTES; i++) {
    const v = fp[i];
    if (v)
      for (let bit = 0; bit < 8; bit++)
        if (v & (1 << bit)) {
          s += q.weights[i * 8 + bit];
          b++;
        }
  }
  const d = b + q.weightsSq - s;
  return d === 0 ? 0 : s / d;
}
