/**
 * What a slot's guaranteed column holds independently of any query, kept once per opened space
 * (prepare.ts builds it while the space thread is idle): per synthon |G_s| and G_s folded to 256
 * bits, and per fingerprint bit the synthons whose G_s holds it (postings, as a CSR).
 *
 * The postings make a query's slot terms cost the synthons that share a bit with Q, not every
 * synthon's words: reading the query's words of all 641,491 synthons of the 10^9 space was a
 * third of a warm query (CPU profile of four product queries, 2026-11-29).
 */
import { FP_BYTES } from '../chem/fingerprint.ts';

const WORDS = FP_BYTES / 4;
const NBITS = FP_BYTES * 8;
export const FOLD_WORDS = 8;

export interface ColumnStats {
  /** |G_s| per synthon. */
  all: Uint16Array;
  /** G_s folded to FOLD_WORDS words (bit b to b mod 256) per synthon. */
  fold: Uint32Array;
  /** Synthons holding bit b: ids[start[b]] … ids[start[b + 1] − 1], ascending. */
  start: Uint32Array;
  ids: Uint32Array;
}

const columnStats = new WeakMap<Uint8Array, ColumnStats>();
const wordViews = new WeakMap<Uint8Array, Uint32Array>();

/**
 * A column of packed fingerprints as one array of words (row i at i·64), made once per column:
 * the walks index it instead of making a view per row and tuple (their garbage, 2026-11-29).
 */
export function columnWords(bytes: Uint8Array): Uint32Array {
  let v = wordViews.get(bytes);
  if (!v) wordViews.set(bytes, (v = new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4)));
  return v;
}

/** Set bits of a 32-bit word. */
export function pop32(v: number): number {
  v = v - ((v >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/** The column's stats, computed on first use (n synthons). */
export function statsOf(guaranteed: Uint8Array, n: number): ColumnStats {
  let st = columnStats.get(guaranteed);
  if (st) return st;
  const g = columnWords(guaranteed);
  const all = new Uint16Array(n);
  const fold = new Uint32Array(n * FOLD_WORDS);
  const start = new Uint32Array(NBITS + 1);
  for (let i = 0; i < n; i++) {
    const o = i * WORDS;
    let c = 0;
    for (let k = 0; k < WORDS; k++) {
      const v = g[o + k];
      if (v === 0) continue;
      c += pop32(v);
      fold[i * FOLD_WORDS + (k % FOLD_WORDS)] |= v;
      for (let b = v; b !== 0; b &= b - 1) start[k * 32 + 31 - Math.clz32(b & -b) + 1]++;
    }
    all[i] = c;
  }
  for (let b = 0; b < NBITS; b++) start[b + 1] += start[b];
  const ids = new Uint32Array(start[NBITS]);
  const at = start.slice(0, NBITS);
  for (let i = 0; i < n; i++) {
    const o = i * WORDS;
    for (let k = 0; k < WORDS; k++)
      for (let b = g[o + k]; b !== 0; b &= b - 1) ids[at[k * 32 + 31 - Math.clz32(b & -b)]++] = i;
  }
  columnStats.set(guaranteed, (st = { all, fold, start, ids }));
  return st;
}
