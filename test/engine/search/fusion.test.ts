import { describe, expect, it } from 'vitest';
import { meanOverQueries, ranksOf, reciprocalRankFusion, RRF_K } from '../../../engine/search/fusion.ts';

describe('ranksOf', () => {
  it('ranks the highest score first, ties by lower index, NaN last', () => {
    expect(Array.from(ranksOf([0.2, 0.9, 0.2, NaN, 0.5]))).toEqual([3, 1, 4, 5, 2]);
  });
});

describe('reciprocalRankFusion', () => {
  it('scores 1 for a candidate first in every list and sums 1/(60 + rank) otherwise', () => {
    const morgan = [0.9, 0.1, 0.5];
    const shape = [0.8, 0.7, 0.2];
    const esp = [0.1, 0.6, 0.3];
    const f = reciprocalRankFusion([morgan, shape, esp]);
    const top = 3 / (RRF_K + 1);
    // candidate 0: ranks 1, 1, 3; candidate 1: 3, 2, 1; candidate 2: 2, 3, 2
    expect(f[0]).toBeCloseTo((1 / 61 + 1 / 61 + 1 / 63) / top, 12);
    expect(f[1]).toBeCloseTo((1 / 63 + 1 / 62 + 1 / 61) / top, 12);
    expect(f[2]).toBeCloseTo((1 / 62 + 1 / 63 + 1 / 62) / top, 12);
    expect(
      reciprocalRankFusion([
        [3, 2],
        [5, 1],
        [0.9, -0.5],
      ])[0],
    ).toBe(1);
  });

  it('ignores the scale of each list (a Carbo index in [-1, 1] counts like a Tanimoto)', () => {
    const a = reciprocalRankFusion([
      [0.1, 0.2, 0.3],
      [-0.9, 0.0, 0.9],
    ]);
    const b = reciprocalRankFusion([
      [10, 20, 30],
      [1, 2, 3],
    ]);
    expect(Array.from(a)).toEqual(Array.from(b));
  });

  it('rejects lists of different lengths and no lists', () => {
    expect(() => reciprocalRankFusion([[1, 2], [1]])).toThrow(RangeError);
    expect(() => reciprocalRankFusion([])).toThrow(RangeError);
  });
});

describe('meanOverQueries', () => {
  it('is the per-candidate mean, and the scores themselves for one query', () => {
    expect(
      Array.from(
        meanOverQueries([
          [0.2, 0.8],
          [0.6, 0.4],
        ]),
      ),
    ).toEqual([0.4, 0.6000000000000001]);
    expect(Array.from(meanOverQueries([[0.25, 0.75]]))).toEqual([0.25, 0.75]);
    expect(() => meanOverQueries([[1], [1, 2]])).toThrow(RangeError);
  });
});
