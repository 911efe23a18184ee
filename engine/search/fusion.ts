/**
 * Fusing several rankings of one candidate set into one (the `consensus` search type) and scoring
 * a candidate against a set of queries (the 3D centroid). Pure functions over plain arrays.
 */

/** Reciprocal-rank fusion's damping constant (Cormack, Clarke & Büttcher, SIGIR 2009). */
export const RRF_K = 60;

/**
 * The 1-based rank of every candidate under each score list (best = highest score; ties by lower
 * candidate index, so ranks are a permutation). NaN scores rank after every number.
 */
export function ranksOf(scores: ArrayLike<number>): Int32Array {
  const n = scores.length;
  const key = (i: number) => (Number.isNaN(scores[i]) ? -Infinity : scores[i]);
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => key(b) - key(a) || a - b);
  const rank = new Int32Array(n);
  order.forEach((c, r) => (rank[c] = r + 1));
  return rank;
}

/**
 * Reciprocal-rank fusion of m rankings of the same n candidates: candidate c scores
 * Σ_m 1/(RRF_K + rank_m(c)), divided by m/(RRF_K + 1) so that a candidate ranked first by every
 * list scores exactly 1. Rank-based, so scores on different scales (a Tanimoto in [0, 1], a Carbo
 * index in [−1, 1]) need no normalising, and one list's outliers cannot dominate the fusion.
 */
export function reciprocalRankFusion(lists: readonly ArrayLike<number>[], k = RRF_K): Float64Array {
  if (!lists.length) throw new RangeError('reciprocalRankFusion needs at least one score list');
  const n = lists[0].length;
  if (lists.some((l) => l.length !== n)) throw new RangeError('score lists differ in length');
  const out = new Float64Array(n);
  for (const l of lists) {
    const rank = ranksOf(l);
    for (let c = 0; c < n; c++) out[c] += 1 / (k + rank[c]);
  }
  const top = lists.length / (k + 1);
  // 1 exactly for a candidate first in every list: the division may land an ulp past it.
  for (let c = 0; c < n; c++) out[c] = Math.min(1, out[c] / top);
  return out;
}

/**
 * Per candidate, the mean of its scores against each query (`perQuery[q][c]`): the 3D centroid
 * score. The mean, not the max, because a centroid should reward what all queries share (the max
 * is "near any one query", which batch mode already answers), and with one query it is that
 * query's own score.
 */
export function meanOverQueries(perQuery: readonly ArrayLike<number>[]): Float64Array {
  if (!perQuery.length) throw new RangeError('meanOverQueries needs at least one query');
  const n = perQuery[0].length;
  const out = new Float64Array(n);
  for (const s of perQuery) {
    if (s.length !== n) throw new RangeError('score lists differ in length');
    for (let c = 0; c < n; c++) out[c] += s[c];
  }
  for (let c = 0; c < n; c++) out[c] /= perQuery.length;
  return out;
}
