import { beforeAll, describe, expect, it } from 'vitest';
import type { FingerprintSet } from '../../../../engine/analysis/fingerprints.ts';
import {
  butina,
  butinaClusters,
  butinaNeighbours,
  concatNeighbours,
} from '../../../../engine/analysis/cluster/butina.ts';
import { rowChunks } from '../../../../engine/analysis/similarity/operations.ts';
import { expectAnalysisError, ref, setOf } from '../support/reference.ts';

let zinc: FingerprintSet;
beforeAll(async () => {
  zinc = await setOf(ref.set_b.smiles);
});

describe('Butina clustering', () => {
  it.each(ref.butina.map((b) => [b.threshold, b] as const))(
    'equals RDKit Butina.ClusterData at distance threshold %s, cluster order and member order included',
    (threshold, expected) => {
      expect(butina(zinc, threshold)).toEqual(expected.clusters);
    },
  );

  it('breaks ties in neighbour count by the higher index first, as RDKit does', () => {
    // at 0.2 most molecules have no neighbour: those singletons come out in descending index order
    const clusters = ref.butina.find((b) => b.threshold === 0.2)!.clusters;
    const singles = clusters.filter((c) => c.length === 1).map((c) => c[0]);
    expect(singles.length).toBeGreaterThan(100);
    expect(singles).toEqual([...singles].sort((a, b) => b - a));
    expect(butina(zinc, 0.2)).toEqual(clusters);
  });

  it('builds the same neighbour lists in row chunks as in one piece', () => {
    const whole = butinaNeighbours(zinc, 0.4);
    const parts = rowChunks(zinc.n, 53).map(([s, e]) => butinaNeighbours(zinc, 0.4, s, e));
    const joined = concatNeighbours(parts);
    expect(joined.offsets).toEqual(whole.offsets);
    expect(joined.neighbours).toEqual(whole.neighbours);
    expect(butinaClusters(joined)).toEqual(ref.butina.find((b) => b.threshold === 0.4)!.clusters);
  });

  it('rejects a threshold outside [0, 1], an empty set and too many neighbour pairs', () => {
    expectAnalysisError(() => butina(zinc, 1.5), 'invalid_parameter', 'threshold');
    expectAnalysisError(
      () => butina({ n: 0, fps: new Uint8Array(0), popcounts: new Uint16Array(0) }, 0.3),
      'empty_input',
    );
    expectAnalysisError(() => butinaNeighbours(zinc, 0.9, 0, zinc.n, 1000), 'too_large', 'threshold');
  });
});
