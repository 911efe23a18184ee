import { describe, expect, it } from 'vitest';
import { histogram } from '../../../web/src/charts/bins.ts';

describe('histogram bins', () => {
  it('splits the range into equal bins, counting the maximum in the last one and missing values apart', () => {
    const h = histogram([0, 0.1, 0.5, 0.99, 1, null, NaN, undefined], 4);
    expect(h.edges).toEqual([0, 0.25, 0.5, 0.75, 1]);
    expect(h.counts).toEqual([2, 0, 1, 2]);
    expect(h.missing).toBe(3);
  });

  it('puts equal values in one bin and never makes more bins than values', () => {
    expect(histogram([3, 3, 3], 20)).toEqual({ edges: [3, 3], counts: [3], missing: 0 });
    expect(histogram([1, 2], 20).counts).toEqual([1, 1]);
    expect(histogram([], 5)).toEqual({ edges: [], counts: [], missing: 0 });
  });
});
