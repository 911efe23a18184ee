import { describe, expect, it } from 'vitest';
import { coordinatesOf } from '../../../web/src/charts/map-answer.ts';

describe('coordinatesOf (the documented GET /visualize answer)', () => {
  it('reads [x, y] per input, NaN where the service has no coordinates, and the explained variance', () => {
    const body = {
      visualisation_method: 'pca',
      coordinates: [[1, 2], null, [3, -4]],
      explained_variance_ratio: [0.2, 0.1],
      errors: [null, 'unparsable SMILES', null],
    };
    const c = coordinatesOf(body, 3)!;
    expect(c.x).toEqual([1, NaN, 3]);
    expect(c.y).toEqual([2, NaN, -4]);
    expect(c.explained).toEqual([0.2, 0.1]);
  });

  it('refuses an answer of another shape or length', () => {
    expect(coordinatesOf({ coordinates: [[1, 2]] }, 2)).toBeNull();
    expect(coordinatesOf([[1, 2]], 1)).toBeNull();
    expect(coordinatesOf(null, 0)).toBeNull();
  });
});
