/** Pearson's r of two equally long lists (the engine tests' agreement measure). */
export const pearson = (a: number[], b: number[]): number => {
  const ma = a.reduce((s, v) => s + v, 0) / a.length;
  const mb = b.reduce((s, v) => s + v, 0) / b.length;
  let ab = 0, aa = 0, bb = 0; // prettier-ignore
  a.forEach((v, i) => ((ab += (v - ma) * (b[i] - mb)), (aa += (v - ma) ** 2), (bb += (b[i] - mb) ** 2)));
  return ab / Math.sqrt(aa * bb);
};
