/** Pearson and Spearman correlation and small helpers of the shape benchmark. */
export function pearson(a: readonly number[], b: readonly number[]): number {
  const n = a.length;
  const ma = a.reduce((s, v) => s + v, 0) / n;
  const mb = b.reduce((s, v) => s + v, 0) / n;
  let ab = 0;
  let aa = 0;
  let bb = 0;
  for (let i = 0; i < n; i++) {
    ab += (a[i] - ma) * (b[i] - mb);
    aa += (a[i] - ma) ** 2;
    bb += (b[i] - mb) ** 2;
  }
  return ab / Math.sqrt(aa * bb);
}

/** Ranks with ties averaged. */
function ranks(a: readonly number[]): number[] {
  const order = a.map((v, i) => [v, i] as const).sort((x, y) => x[0] - y[0]);
  const r = new Array<number>(a.length);
  for (let i = 0; i < order.length;) {
    let j = i;
    while (j + 1 < order.length && order[j + 1][0] === order[i][0]) j++;
    for (let m = i; m <= j; m++) r[order[m][1]] = (i + j) / 2;
    i = j + 1;
  }
  return r;
}

export const spearman = (a: readonly number[], b: readonly number[]): number => pearson(ranks(a), ranks(b));

export const meanOf = (a: readonly number[]): number => a.reduce((s, v) => s + v, 0) / a.length;

/** Fraction of the `truth` top-n (indices) found in `found`. */
export function recall(truth: readonly number[], found: Iterable<number>): number {
  const set = new Set(found);
  return truth.filter((i) => set.has(i)).length / truth.length;
}

export const r3 = (v: number): string => v.toFixed(3);
