/** Equal-width histogram bins of the finite values; missing values are counted apart. Pure. */
export interface Bins {
  edges: number[];
  counts: number[];
  missing: number;
}

export function histogram(values: (number | null | undefined)[], bins = 20): Bins {
  const xs = values.filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
  const missing = values.length - xs.length;
  if (!xs.length) return { edges: [], counts: [], missing };
  let lo = Infinity;
  let hi = -Infinity;
  for (const x of xs) {
    if (x < lo) lo = x;
    if (x > hi) hi = x;
  }
  if (lo === hi) return { edges: [lo, hi], counts: [xs.length], missing };
  const k = Math.max(1, Math.min(bins, xs.length));
  const width = (hi - lo) / k;
  const counts = new Array<number>(k).fill(0);
  // The last bin is closed on the right, so the maximum is counted.
  for (const x of xs) counts[Math.min(k - 1, Math.floor((x - lo) / width))]++;
  return { edges: Array.from({ length: k + 1 }, (_, i) => lo + i * width), counts, missing };
}
