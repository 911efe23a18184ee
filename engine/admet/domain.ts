/**
 * Applicability domain of one ADMET model, as trained (models/domain.py is the reference): a molecule
 * is in domain when a few physchem descriptors lie inside the training set's [min, max] and the
 * share of its Morgan bits rarely or never seen in training does not exceed a calibrated threshold.
 */
import { ADMET_DESCRIPTOR_NAMES, ADMET_FEATURE_LENGTH, ADMET_N_BITS } from './features.ts';

/** One endpoint's entry of models/onnx/domain.json. */
export interface DomainRecord {
  descriptor_box: Record<string, [number, number]>;
  /** Seen-bit mask, base64, packed like MinimalLib fingerprints (bit i in byte i >> 3, LSB first). */
  seen_bits_b64: string;
  max_unseen_bit_fraction: number;
}

/** A domain test prepared for fast repeated use. */
export interface DomainCheck {
  seen: Uint8Array;
  box: { index: number; lo: number; hi: number }[];
  maxUnseen: number;
}

/** Decodes a domain.json record; throws when it names an unknown descriptor or has a bad mask. */
export function prepareDomainCheck(rec: DomainRecord): DomainCheck {
  const seen = new Uint8Array(Buffer.from(rec.seen_bits_b64, 'base64'));
  if (seen.length * 8 !== ADMET_N_BITS)
    throw new Error(`seen-bit mask has ${seen.length * 8} bits, expected ${ADMET_N_BITS}`);
  const box = Object.entries(rec.descriptor_box).map(([name, [lo, hi]]) => {
    const i = ADMET_DESCRIPTOR_NAMES.indexOf(name);
    if (i < 0) throw new Error(`domain box names unknown descriptor ${name}`);
    return { index: ADMET_N_BITS + i, lo, hi };
  });
  return { seen, box, maxUnseen: rec.max_unseen_bit_fraction };
}

/** The on-bits of each feature row, listed once per batch and shared by the 22 domain checks. */
export interface OnBits {
  /** Bits of row r: bits[start[r] .. start[r + 1]). */
  start: Uint32Array;
  bits: Uint16Array;
}

/** Lists the Morgan on-bits of `n` feature rows (a bit is on when its float is > 0.5). */
export function listOnBits(features: Float32Array, n: number): OnBits {
  const start = new Uint32Array(n + 1);
  let bits = new Uint16Array(Math.max(64, n * 48));
  let k = 0;
  for (let r = 0; r < n; r++) {
    const base = r * ADMET_FEATURE_LENGTH;
    for (let b = 0; b < ADMET_N_BITS; b++) {
      if (features[base + b] > 0.5) {
        if (k === bits.length) {
          const grown = new Uint16Array(bits.length * 2);
          grown.set(bits);
          bits = grown;
        }
        bits[k++] = b;
      }
    }
    start[r + 1] = k;
  }
  return { start, bits };
}

/**
 * Writes 1 (in domain) or 0 for each of the `n` feature rows into `out`. Pure and synchronous;
 * the arithmetic mirrors models/domain.py (float32 features compared as doubles). `on` may be
 * passed when several endpoints check the same rows (listOnBits once instead of 22 scans).
 */
export function checkDomain(
  check: DomainCheck,
  features: Float32Array,
  n: number,
  out: Uint8Array,
  on: OnBits = listOnBits(features, n),
): void {
  for (let r = 0; r < n; r++) {
    const base = r * ADMET_FEATURE_LENGTH;
    const from = on.start[r];
    const to = on.start[r + 1];
    let unseen = 0;
    for (let k = from; k < to; k++) {
      const b = on.bits[k];
      if (((check.seen[b >> 3] >> (b & 7)) & 1) === 0) unseen++;
    }
    const count = to - from;
    let ok = (count > 0 ? unseen / count : 0) <= check.maxUnseen;
    for (const { index, lo, hi } of check.box) {
      const v = features[base + index];
      if (!(v >= lo && v <= hi)) ok = false;
    }
    out[r] = ok ? 1 : 0;
  }
}
