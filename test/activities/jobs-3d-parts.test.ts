import { describe, expect, it } from 'vitest';
import { decodePart3d, encodePart3d } from '../../activities/jobs-3d-parts.ts';

describe('3D scan parts', () => {
  it('round-trip rows, double scores, conformer pairs, transforms and counts, at any byte offset', () => {
    const part = {
      rows: Int32Array.from([4, 0]),
      shape: Float64Array.from([0.8123456789012345, 0.5]),
      esp: Float64Array.from([-0.1, 0.3]),
      queryConf: Int32Array.from([2, 0]),
      candidateConf: Int32Array.from([1, 7]),
      transforms: Float64Array.from({ length: 24 }, (_, i) => i / 7),
      scored: 19,
      rejected: 1,
    };
    const bytes = encodePart3d(part);
    const shifted = new Uint8Array(bytes.length + 3);
    shifted.set(bytes, 3);
    for (const b of [bytes, shifted.subarray(3)]) {
      const back = decodePart3d(b);
      for (const k of ['rows', 'shape', 'esp', 'queryConf', 'candidateConf', 'transforms'] as const)
        expect(Array.from(back[k])).toEqual(Array.from(part[k]));
      expect([back.scored, back.rejected]).toEqual([19, 1]);
    }
    expect(() => decodePart3d(bytes.subarray(0, bytes.length - 4))).toThrow(/not a 3D scan part/);
  });
});
