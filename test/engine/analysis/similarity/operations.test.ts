import { beforeAll, describe, expect, it } from 'vitest';
import {
  fromPacked,
  fingerprintSet,
  sliceSet,
  type FingerprintSet,
} from '../../../../engine/analysis/fingerprints.ts';
import { metricFor, MORGAN_TANIMOTO } from '../../../../engine/analysis/similarity/metrics.ts';
import {
  batchSimilarity,
  pairSimilarity,
  rowChunks,
  similarityMatrix,
  similarityRows,
} from '../../../../engine/analysis/similarity/operations.ts';
import { TILE_ROWS } from '../../../../engine/analysis/similarity/tanimoto-matrix.ts';
import { tanimotoJs } from '../../../../engine/search/kernel-js.ts';
import { expectAnalysisError, randomFingerprints, ref, setOf } from '../support/reference.ts';

let drugs: FingerprintSet;
let queries: FingerprintSet;

beforeAll(async () => {
  drugs = await setOf(ref.set_a.smiles);
  queries = sliceSet(drugs, 0, ref.similarity.queries);
});

describe('Morgan similarity matrix', () => {
  it('equals RDKit BulkTanimotoSimilarity, rounded to float32, in every cell', () => {
    const m = similarityMatrix(metricFor('morgan'), queries, drugs);
    expect([m.rows, m.cols]).toEqual([25, 150]);
    let mismatches = 0;
    ref.similarity.values.forEach((row, i) =>
      row.forEach((v, j) => {
        if (m.values[i * m.cols + j] !== Math.fround(v)) mismatches++;
      }),
    );
    expect(mismatches).toBe(0);
    // a molecule is identical to itself
    for (let i = 0; i < 25; i++) expect(m.values[i * 150 + i]).toBe(1);
  });

  it('is the same whether computed whole or as row chunks', () => {
    const whole = similarityMatrix(MORGAN_TANIMOTO, queries, drugs).values;
    const parts = rowChunks(25, 7).map(([s, e]) => similarityRows(MORGAN_TANIMOTO, queries, drugs, s, e));
    expect(parts.map((p) => p.length / 150)).toEqual([7, 7, 7, 4]);
    const joined = new Float32Array(whole.length);
    let at = 0;
    for (const p of parts) joined.set(p, (at += p.length) - p.length);
    expect(joined).toEqual(whole);
  });

  it('scores targets across several cache tiles like the reference kernel', () => {
    const targets = fromPacked(randomFingerprints(TILE_ROWS * 2 + 37, 45, 3));
    const q = fromPacked(randomFingerprints(5, 45, 4));
    const m = similarityMatrix(MORGAN_TANIMOTO, q, targets);
    for (let i = 0; i < 5; i++)
      for (const j of [0, 1, TILE_ROWS - 1, TILE_ROWS, TILE_ROWS * 2, TILE_ROWS * 2 + 36])
        expect(m.values[i * targets.n + j]).toBe(
          tanimotoJs(q.fps.subarray(i * 256, i * 256 + 256), targets.fps, j),
        );
  });

  it('answers pair and batch similarity with the matrix values', () => {
    const m = similarityMatrix(MORGAN_TANIMOTO, queries, drugs);
    expect(pairSimilarity(MORGAN_TANIMOTO, sliceSet(drugs, 3, 4), sliceSet(drugs, 77, 78))).toBe(
      m.values[3 * 150 + 77],
    );
    expect(batchSimilarity(MORGAN_TANIMOTO, sliceSet(drugs, 4, 5), drugs)).toEqual(
      m.values.subarray(4 * 150, 5 * 150),
    );
  });
});

describe('similarity input errors', () => {
  it('names the empty list', () => {
    const empty = fingerprintSet([]);
    expectAnalysisError(
      () => similarityMatrix(MORGAN_TANIMOTO, empty, drugs),
      'empty_input',
      'smiles_list_1',
    );
    expectAnalysisError(() => batchSimilarity(MORGAN_TANIMOTO, queries, empty), 'empty_input', 'smiles_list');
    expectAnalysisError(() => pairSimilarity(MORGAN_TANIMOTO, queries, empty), 'empty_input', 'smiles_2');
  });

  it('refuses a matrix larger than the limit', () => {
    expectAnalysisError(
      () => similarityMatrix(MORGAN_TANIMOTO, queries, drugs, 1000),
      'too_large',
      'smiles_list_2',
    );
  });

  it('refuses search types without a metric, listing the allowed ones', () => {
    expectAnalysisError(() => metricFor('espsim_shape'), 'unknown_metric', 'search_type');
    expect(() => metricFor('tanimoto')).toThrow(/allowed: morgan/);
  });

  it('refuses fingerprints of the wrong length', () => {
    expectAnalysisError(() => fingerprintSet([new Uint8Array(128)]), 'dimension_mismatch', 'search_input');
  });
});
