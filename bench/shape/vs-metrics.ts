/**
 * Virtual-screening figures of bench/shape/dude.ts and dude-full.ts: AUROC, enrichment factor and
 * ROC enrichment of one ranked library (higher score = ranked first; equal scores keep library
 * order, so a tie never favours the actives).
 */

/** AUROC with ties counted half (Mann–Whitney U over actives × decoys, by ranks: O(n log n)). */
export function auroc(scores: readonly number[], active: readonly boolean[]): number {
  const order = scores.map((s, i) => [s, i] as const).sort((x, y) => x[0] - y[0]);
  let rankSum = 0;
  let actives = 0;
  for (let i = 0; i < order.length;) {
    let j = i;
    while (j + 1 < order.length && order[j + 1][0] === order[i][0]) j++;
    const rank = (i + j) / 2 + 1; // tied scores share their mean rank
    for (let m = i; m <= j; m++)
      if (active[order[m][1]]) {
        rankSum += rank;
        actives++;
      }
    i = j + 1;
  }
  const decoys = scores.length - actives;
  return (rankSum - (actives * (actives + 1)) / 2) / (actives * decoys);
}

const ranked = (scores: readonly number[]) =>
  scores.map((s, i) => [s, i] as const).sort((x, y) => y[0] - x[0] || x[1] - y[1]);

/** Enrichment factor at `frac` of the ranked library (at least one molecule). */
export function ef(scores: readonly number[], active: readonly boolean[], frac: number): number {
  const n = Math.max(1, Math.round(scores.length * frac));
  const found = ranked(scores)
    .slice(0, n)
    .filter(([, i]) => active[i]).length;
  const total = active.filter(Boolean).length;
  return found / n / (total / scores.length);
}

/** The largest EF at `frac` this library allows (every top slot an active). */
export function efMax(size: number, actives: number, frac: number): number {
  const n = Math.max(1, Math.round(size * frac));
  return Math.min(n, actives) / n / (actives / size);
}

/** ROC enrichment (Jain & Nicholls 2008): actives found / actives, at `fpr` of the decoys ranked, / fpr. */
export function roce(scores: readonly number[], active: readonly boolean[], fpr: number): number {
  const decoys = active.filter((a) => !a).length;
  const actives = active.length - decoys;
  const stop = Math.max(1, Math.round(decoys * fpr));
  let d = 0;
  let a = 0;
  for (const [, i] of ranked(scores)) {
    if (active[i]) a++;
    else if (++d >= stop) break;
  }
  return a / actives / (d / decoys);
}
