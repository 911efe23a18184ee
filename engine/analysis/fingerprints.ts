/**
 * A set of packed 2048-bit Morgan fingerprints as the kernels read them: rows of 256 bytes plus a
 * u16 popcount column. Built once per request; the kernels never re-count a row's bits.
 */
import { FP_BYTES } from '../chem/fingerprint.ts';
import { popcountOf } from '../search/kernel-js.ts';
import { AnalysisError } from './errors.ts';

export interface FingerprintSet {
  /** Number of fingerprints. */
  n: number;
  /** n × 256 bytes, RDKit byte layout (bit i in byte i >> 3, bit i & 7). */
  fps: Uint8Array;
  /** Set bits per row. */
  popcounts: Uint16Array;
}

/** Packs fingerprints (each 256 bytes) into one set; `field` names the input in errors. */
export function fingerprintSet(list: readonly Uint8Array[], field = 'search_input'): FingerprintSet {
  const fps = new Uint8Array(list.length * FP_BYTES);
  list.forEach((fp, i) => {
    if (!(fp instanceof Uint8Array) || fp.length !== FP_BYTES)
      throw new AnalysisError(
        'dimension_mismatch',
        field,
        `fingerprint ${i} has ${fp?.length ?? 0} bytes, expected ${FP_BYTES} (2048 bits)`,
      );
    fps.set(fp, i * FP_BYTES);
  });
  return fromPacked(fps);
}

/** A set over already packed rows (length a multiple of 256); the bytes are not copied. */
export function fromPacked(fps: Uint8Array): FingerprintSet {
  if (fps.length % FP_BYTES !== 0)
    throw new AnalysisError(
      'dimension_mismatch',
      'fingerprints',
      `${fps.length} bytes is not whole 256-byte rows`,
    );
  const n = fps.length / FP_BYTES;
  const popcounts = new Uint16Array(n);
  for (let i = 0; i < n; i++) popcounts[i] = popcountOf(fps, i);
  return { n, fps, popcounts };
}

/** Row i of a set (a view, not a copy). */
export function rowOf(set: FingerprintSet, i: number): Uint8Array {
  return set.fps.subarray(i * FP_BYTES, (i + 1) * FP_BYTES);
}

/** The rows [start, end) of a set as a set of their own (views, no copy). */
export function sliceSet(set: FingerprintSet, start: number, end: number): FingerprintSet {
  return {
    n: end - start,
    fps: set.fps.subarray(start * FP_BYTES, end * FP_BYTES),
    popcounts: set.popcounts.subarray(start, end),
  };
}
