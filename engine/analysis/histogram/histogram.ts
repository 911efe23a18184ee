/**
 * Histograms a plot can draw directly: bin edges and counts, plus the values it could not place
 * (missing: null/NaN; below / above the edges). Bin i holds edges[i] <= x < edges[i + 1], the
 * last bin also holds x == its upper edge, and equal-width edges are numpy's linspace: counts
 * equal numpy.histogram's. Accumulators over chunks merge exactly (integer counts), so a
 * workflow can histogram a whole catalog shard by shard.
 */
import { AnalysisError, checkInteger, checkLimit } from '../errors.ts';
import { ANALYSIS_LIMITS } from '../limits.ts';

/** `bins` equal-width bins over `range` ([min, max] of the data when omitted), or explicit `edges`. */
export type HistogramSpec = { bins: number; range?: [number, number] } | { edges: readonly number[] };

export interface Histogram {
  /** bins + 1 increasing edges. */
  edges: number[];
  counts: number[];
  /** null, undefined or NaN values. */
  missing: number;
  /** Finite values below edges[0] / above the last edge (not in any bin). */
  below: number;
  above: number;
  /** All values seen, missing ones included. */
  total: number;
}

export interface HistogramAccumulator {
  add(values: ArrayLike<number | null | undefined>): void;
  /** Adds another accumulator's counts (same edges) into this one. */
  merge(other: Histogram): void;
  result(): Histogram;
}

/** numpy.linspace(lo, hi, bins + 1), bit for bit: arange(0, n) * step + lo with the last edge set to hi. */
export function linspaceEdges(lo: number, hi: number, bins: number): number[] {
  const step = (hi - lo) / bins;
  const edges = Array.from({ length: bins + 1 }, (_, i) => i * step + lo);
  edges[bins] = hi;
  return edges;
}

function checkEdges(edges: readonly number[], field: string): void {
  checkLimit(field, edges.length - 1, ANALYSIS_LIMITS.maxBins, 'bins');
  if (edges.length < 2) throw new AnalysisError('invalid_parameter', field, 'needs at least two edges');
  for (let i = 0; i < edges.length; i++) {
    if (!Number.isFinite(edges[i]))
      throw new AnalysisError('invalid_parameter', field, `edge ${i} is not finite`);
    if (i > 0 && !(edges[i] > edges[i - 1]))
      throw new AnalysisError('invalid_parameter', field, 'edges must increase strictly');
  }
}

/** The edges a spec with a known range describes; `field` names the parameter in errors. */
export function edgesOf(spec: HistogramSpec, field = 'bins'): number[] {
  if ('edges' in spec) {
    checkEdges(spec.edges, field);
    return [...spec.edges];
  }
  checkInteger(field, spec.bins, 1, ANALYSIS_LIMITS.maxBins);
  if (!spec.range)
    throw new AnalysisError('invalid_parameter', field, 'a range is needed to accumulate in chunks');
  let [lo, hi] = spec.range;
  if (!Number.isFinite(lo) || !Number.isFinite(hi) || hi < lo)
    throw new AnalysisError('invalid_parameter', 'range', `range [${lo}, ${hi}] is not an interval`);
  // numpy widens an empty range by 0.5 on each side.
  if (lo === hi) [lo, hi] = [lo - 0.5, hi + 0.5];
  return linspaceEdges(lo, hi, spec.bins);
}

/** An empty accumulator over the edges of `spec` (which must carry a range or edges). */
export function createHistogram(spec: HistogramSpec, field = 'bins'): HistogramAccumulator {
  const edges = edgesOf(spec, field);
  const bins = edges.length - 1;
  const counts = new Float64Array(bins);
  let missing = 0;
  let below = 0;
  let above = 0;
  let total = 0;
  const lo = edges[0];
  const hi = edges[bins];
  return {
    add(values) {
      for (let i = 0; i < values.length; i++) {
        const x = values[i];
        total++;
        if (x === null || x === undefined || Number.isNaN(x)) missing++;
        else if (x < lo) below++;
        else if (x > hi) above++;
        else if (x === hi) counts[bins - 1]++;
        else {
          // the last edge e with e <= x: binary search over the edges
          let a = 0;
          let b = bins - 1;
          while (a < b) {
            const mid = (a + b + 1) >> 1;
            if (edges[mid] <= x) a = mid;
            else b = mid - 1;
          }
          counts[a]++;
        }
      }
    },
    merge(other) {
      if (other.edges.length !== edges.length || other.edges.some((e, i) => e !== edges[i]))
        throw new RangeError('cannot merge histograms with different edges');
      other.counts.forEach((c, i) => (counts[i] += c));
      missing += other.missing;
      below += other.below;
      above += other.above;
      total += other.total;
    },
    result: () => ({ edges: [...edges], counts: Array.from(counts), missing, below, above, total }),
  };
}

/**
 * The histogram of `values` in one call. With `bins` and no range the range is [min, max] of the
 * finite values (numpy's default); with no finite value at all it is [0, 1].
 */
export function histogramOf(values: ArrayLike<number | null | undefined>, spec: HistogramSpec): Histogram {
  let s = spec;
  if (!('edges' in spec) && !spec.range) {
    let lo = Infinity;
    let hi = -Infinity;
    for (let i = 0; i < values.length; i++) {
      const x = values[i];
      if (x === null || x === undefined || !Number.isFinite(x)) continue;
      if (x < lo) lo = x;
      if (x > hi) hi = x;
    }
    s = { bins: spec.bins, range: lo <= hi ? [lo, hi] : [0, 1] };
  }
  const acc = createHistogram(s);
  acc.add(values);
  return acc.result();
}
