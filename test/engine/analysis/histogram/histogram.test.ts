import { describe, expect, it } from 'vitest';
import { createHistogram, histogramOf } from '../../../../engine/analysis/histogram/histogram.ts';
import { addShardColumn, histogramColumn } from '../../../../engine/analysis/histogram/catalog-column.ts';
import { jobResultColumn } from '../../../../engine/analysis/histogram/job-result-column.ts';
import { allocJobResult } from '../../../../engine/export/job-result.ts';
import { readShard } from '../../../../engine/catalog/reader.ts';
import { buildReferenceCatalog } from '../../../support/fixture-catalog.ts';
import { readFileSync } from 'node:fs';
import { expectAnalysisError, ref } from '../support/reference.ts';

describe('histograms', () => {
  const row = ref.similarity.values[0];

  it('equal numpy.histogram with a bin count and range, edges bit for bit', () => {
    const h = histogramOf(row, { bins: 10, range: [0, 1] });
    expect(h.edges).toEqual(ref.histogram.similarity_row0_bins10.edges);
    expect(h.counts).toEqual(ref.histogram.similarity_row0_bins10.counts);
  });

  it('equal numpy.histogram with explicit edges', () => {
    const want = ref.histogram.similarity_row0_edges;
    expect(histogramOf(row, { edges: want.edges }).counts).toEqual(want.counts);
  });

  it("equal numpy.histogram over the data's own range", () => {
    const h = histogramOf(
      ref.descriptor_table.rows.map((r) => r[0]),
      { bins: 7 },
    );
    expect(h.edges).toEqual(ref.histogram.molwt_bins7.edges);
    expect(h.counts).toEqual(ref.histogram.molwt_bins7.counts);
  });

  it('counts missing values and values outside the edges apart from the bins', () => {
    const h = histogramOf([0.5, null, Number.NaN, -1, 2, 1, undefined], { bins: 2, range: [0, 1] });
    expect(h).toMatchObject({ counts: [0, 2], missing: 3, below: 1, above: 1, total: 7 });
  });

  it('accumulated in chunks and merged equals one pass', () => {
    const whole = histogramOf(row, { bins: 20, range: [0, 1] });
    const a = createHistogram({ bins: 20, range: [0, 1] });
    const b = createHistogram({ bins: 20, range: [0, 1] });
    a.add(row.slice(0, 60));
    b.add(row.slice(60));
    a.merge(b.result());
    expect(a.result()).toEqual(whole);
  });

  it('rejects bad specifications with the parameter named', () => {
    expectAnalysisError(() => histogramOf(row, { edges: [0, 0.5, 0.5, 1] }), 'invalid_parameter', 'bins');
    expectAnalysisError(() => histogramOf(row, { bins: 0 }), 'invalid_parameter', 'bins');
    expectAnalysisError(() => histogramOf(row, { bins: 5000 }), 'invalid_parameter', 'bins');
    expectAnalysisError(() => histogramOf(row, { bins: 5, range: [1, 0] }), 'invalid_parameter', 'range');
    expectAnalysisError(() => histogramColumn('smiles'), 'invalid_parameter', 'property');
  });
});

describe('property histograms over a catalog', () => {
  it('of a descriptor column over every shard equal the histogram of the molecules’ values', async () => {
    const { catalog, reference, ids } = await buildReferenceCatalog({ shardRows: 16 });
    const acc = createHistogram({ bins: 12, range: [0, 800] });
    const shards = catalog.manifest.shards.length;
    expect(shards).toBeGreaterThan(1);
    for (let i = 0; i < shards; i++)
      addShardColumn(
        acc,
        readShard(new Uint8Array(readFileSync(catalog.shardPath(i))), i),
        'molecular_weight',
      );
    const weights = [...ids.values()].map((i) => reference.molecules[i].descriptors.molecular_weight);
    const want = histogramOf(weights, { bins: 12, range: [0, 800] });
    expect(acc.result()).toEqual(want);
  });
});

describe('histograms of a job result', () => {
  it('read similarity and property columns, null properties counted as missing', () => {
    const r = allocJobResult(4);
    r.similarity.set([1, 0.9, 0.5, 0.45]);
    r.props[0].set([0.1, Number.NaN, 0.7, 0.2]);
    expect(histogramOf(jobResultColumn(r, 'similarity'), { bins: 2, range: [0, 1] }).counts).toEqual([1, 3]);
    const h = histogramOf(jobResultColumn(r, 'caco2_wang'), { bins: 2, range: [0, 1] });
    expect(h).toMatchObject({ counts: [2, 1], missing: 1 });
    expectAnalysisError(() => jobResultColumn(r, 'smiles'), 'invalid_parameter', 'columns');
  });
});
