/**
 * Summary of a list of scores (nearest-neighbour similarities, a similarity column): moments,
 * numpy's default (linear) quantiles and a histogram over [0, 1].
 */
import { AnalysisError } from '../errors.ts';
import { histogramOf, type Histogram } from '../histogram/histogram.ts';

export interface ScoreDistribution {
  count: number;
  mean: number;
  std: number;
  min: number;
  max: number;
  /** numpy.quantile(x, q) (method 'linear') at q = 0.05, 0.25, 0.5, 0.75, 0.95. */
  quantiles: { p05: number; p25: number; p50: number; p75: number; p95: number };
  histogram: Histogram;
}

/** numpy.quantile(sorted, q) with the default linear method; `sorted` ascending, non-empty. */
export function quantileSorted(sorted: ArrayLike<number>, q: number): number {
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.min(sorted.length - 1, lo + 1);
  const frac = pos - lo;
  return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

/** The distribution of similarity scores (NaN entries are left out); `bins` histogram bins over [0, 1]. */
export function scoreDistribution(
  scores: ArrayLike<number>,
  bins = 20,
  field = 'search_input',
): ScoreDistribution {
  const finite = Float64Array.from(
    Array.prototype.filter.call(scores, (x: number) => !Number.isNaN(x)) as number[],
  );
  if (finite.length === 0) throw new AnalysisError('empty_input', field, 'no scores to summarise');
  finite.sort();
  let sum = 0;
  for (const x of finite) sum += x;
  const mean = sum / finite.length;
  let ss = 0;
  for (const x of finite) ss += (x - mean) * (x - mean);
  return {
    count: finite.length,
    mean,
    std: Math.sqrt(ss / finite.length),
    min: finite[0],
    max: finite[finite.length - 1],
    quantiles: {
      p05: quantileSorted(finite, 0.05),
      p25: quantileSorted(finite, 0.25),
      p50: quantileSorted(finite, 0.5),
      p75: quantileSorted(finite, 0.75),
      p95: quantileSorted(finite, 0.95),
    },
    histogram: histogramOf(finite, { bins, range: [0, 1] }),
  };
}
