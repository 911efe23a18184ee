/**
 * The filters of paging and downloads, applied on read to a job result: similarity threshold, a
 * distance window, and property ranges that flag rows (in_prop_range) without dropping them.
 */
import { PROPERTY_KEYS, type JobResult } from './job-result.ts';

/** Most rows a job result can be paged or exported (the contract's limit). */
export const MAX_VIEW_ROWS = 100_000;
/** The spec's default range of every property: values inside it are "unconstrained". */
export const DEFAULT_RANGE = { min: -100_000, max: 100_000 } as const;

export interface ResultFilter {
  /** Rows with similarity below it are dropped (0 keeps all). */
  simTh: number;
  /** Distance window on d = 1 - similarity: rows with d outside [dMin, dMax] are dropped. */
  dMin: number;
  dMax: number;
  /** property key → inclusive range; flags rows, never drops them. */
  propRanges: Record<string, { min: number; max: number }>;
}

export interface ResultView {
  /** Result rows that pass, in result order (similarity desc), at most MAX_VIEW_ROWS. */
  indices: Int32Array;
  /** 1 when the row at the same position of `indices` is inside every property range. */
  inRange: Uint8Array;
}

/** Similarity as shown to clients: rounded to 5 decimals. */
export const round5 = (x: number): number => Math.round(x * 1e5) / 1e5;

/**
 * Whether value v satisfies range [min, max]. A missing value (NaN: no prediction in the catalog)
 * passes only a range that covers the default span, so the defaults clients send for all 33 keys
 * never flag a row, while a narrowed range on a missing value does.
 */
export function inRange(v: number, min: number, max: number): boolean {
  if (Number.isNaN(v)) return min <= DEFAULT_RANGE.min && max >= DEFAULT_RANGE.max;
  return v >= min && v <= max;
}

/** The rows of `r` passing `f` and their in-range flags. Pure; O(rows × ranges). */
export function resultView(r: JobResult, f: ResultFilter): ResultView {
  const ranges = Object.entries(f.propRanges).map(([k, v]) => ({
    col: r.props[PROPERTY_KEYS.indexOf(k)],
    min: v.min,
    max: v.max,
  }));
  for (const [k] of Object.entries(f.propRanges))
    if (!PROPERTY_KEYS.includes(k)) throw new RangeError(`unknown property ${k}`);
  const idx = new Int32Array(Math.min(r.rows, MAX_VIEW_ROWS));
  const flags = new Uint8Array(idx.length);
  let n = 0;
  for (let i = 0; i < r.rows && n < idx.length; i++) {
    const s = round5(r.similarity[i]);
    const d = round5(1 - s);
    if (s < f.simTh || d < f.dMin || d > f.dMax) continue;
    let ok = 1;
    for (const g of ranges)
      if (!inRange(g.col[i], g.min, g.max)) {
        ok = 0;
        break;
      }
    idx[n] = i;
    flags[n++] = ok;
  }
  return { indices: idx.subarray(0, n), inRange: flags.subarray(0, n) };
}
