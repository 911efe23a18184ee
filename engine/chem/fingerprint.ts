/**
 * Fingerprint constants and small pure helpers on packed fingerprints (Uint8Array, bit i is
 * byte i >> 3, bit i & 7, least significant first: the layout of MinimalLib's
 * `get_morgan_fp_as_uint8array`).
 */

/** The catalog fingerprint: Morgan (ECFP4-like), radius 2, 2048 bits, RDKit defaults otherwise. */
export const MORGAN_FP = { kind: 'morgan', radius: 2, nBits: 2048 } as const;
/** Bytes of one packed fingerprint. */
export const FP_BYTES = MORGAN_FP.nBits / 8;
/** MinimalLib options string for that fingerprint. */
export const MORGAN_DETAILS = JSON.stringify({ radius: MORGAN_FP.radius, nBits: MORGAN_FP.nBits });

const POP8 = Uint8Array.from({ length: 256 }, (_, i) => {
  let c = 0;
  for (let v = i; v; v >>= 1) c += v & 1;
  return c;
});

/** Number of set bits of a packed fingerprint. */
export function popcount(fp: Uint8Array): number {
  let c = 0;
  for (let i = 0; i < fp.length; i++) c += POP8[fp[i]];
  return c;
}

/** Tanimoto similarity |a∧b| / |a∨b| of two packed fingerprints of equal length; 0 when both are empty. */
export function tanimoto(a: Uint8Array, b: Uint8Array): number {
  if (a.length !== b.length) throw new Error('fingerprints differ in length');
  let both = 0;
  let either = 0;
  for (let i = 0; i < a.length; i++) {
    both += POP8[a[i] & b[i]];
    either += POP8[a[i] | b[i]];
  }
  return either === 0 ? 0 : both / either;
}

/** Indices of the set bits, ascending (RDKit's `GetOnBits` order). */
export function onBits(fp: Uint8Array): number[] {
  const out: number[] = [];
  for (let i = 0; i < fp.length * 8; i++) if (fp[i >> 3] & (1 << (i & 7))) out.push(i);
  return out;
}

/** Packs on-bit indices into a fingerprint of `nBits` bits. */
export function fromOnBits(bits: readonly number[], nBits: number = MORGAN_FP.nBits): Uint8Array {
  const fp = new Uint8Array(nBits / 8);
  for (const i of bits) fp[i >> 3] |= 1 << (i & 7);
  return fp;
}
