import { beforeAll, describe, expect, it } from 'vitest';
import {
  checkCapabilities,
  executeSelection,
  libraryFacts,
  METRIC_IDS,
  needsExternalScores,
  normalizeSelection,
  type Library,
} from '../../../engine/selection/index.ts';
import { tanimoto, getRDKit, parseMolecule } from '../../../engine/chem/index.ts';
import { drugsLibrary } from '../../../testkit/drugs-library.ts';

// Objectives with 3D metric ids are scored by the caller (the API's 3D search path); the engine
// takes their candidates and scores as plain data and applies everything else as usual.
const ASPIRIN = 'CC(=O)Oc1ccccc1C(=O)O';
let lib: Library;
beforeAll(async () => {
  lib = await drugsLibrary();
}, 120_000);

const doc = (
  objectives: { metric_id: string; reference_id: string }[],
  extra: Record<string, unknown> = {},
) => ({
  database: { database_id: 'drugs' },
  strategy: { type: 'ranked' },
  references: [{ id: 'q', structure: { format: 'smiles', value: ASPIRIN } }],
  objectives: objectives.map((o) => ({ type: 'similarity', direction: 'maximize', ...o })),
  portfolio: { limit: 3 },
  include: ['objective_components'],
  ...extra,
});

describe('executeSelection with external (3D) objective scores', () => {
  it('ranks the given candidates by the given scores, drops rows without a score, names the metric', async () => {
    const sel = normalizeSelection(
      doc([{ metric_id: 'cheese.shape', reference_id: 'q' }]),
      libraryFacts(lib),
    );
    expect(needsExternalScores(sel)).toBe(true);
    const rows = Int32Array.from([5, 9, 2, 7]);
    const out = await executeSelection(lib, sel, {
      rows,
      scores: { 0: Float64Array.from([0.4, 0.9, NaN, 0.6]) },
      generation: 'test',
    });
    expect(out.results.map((r) => [r.product_id, r.score, r.metric])).toEqual([
      [lib.productId(9), 0.9, 'cheese.shape'],
      [lib.productId(7), 0.6, 'cheese.shape'],
      [lib.productId(5), 0.4, 'cheese.shape'],
    ]);
    expect(out.results[0].objective_components).toEqual({ 'cheese.shape:q': 0.9 });
    expect(out.execution_plan.candidate_generation).toBe('test');
    expect(out.warnings.map((w) => w.code)).toContain('no_3d_model');
  });

  it('averages a 3D objective with an ECFP4 objective scored by the engine (exact Tanimoto)', async () => {
    const sel = normalizeSelection(
      doc([
        { metric_id: 'cheese.electrostatic', reference_id: 'q' },
        { metric_id: 'rdkit.ecfp4_tanimoto', reference_id: 'q' },
      ]),
      libraryFacts(lib),
    );
    const rows = Int32Array.from([1, 2, 3]);
    const esp = Float64Array.from([0.1, 0.2, 0.3]);
    const out = await executeSelection(lib, sel, { rows, scores: { 0: esp }, generation: 'test' });
    const q = parseMolecule(await getRDKit(), ASPIRIN);
    if ('error' in q) throw new Error(q.error);
    const want = [1, 2, 3]
      .map((r, i) => ({ r, s: (esp[i] + tanimoto(q.fp, lib.fingerprint(r))) / 2 }))
      .sort((a, b) => b.s - a.s || a.r - b.r);
    expect(out.results.map((h) => [h.product_id, h.score])).toEqual(
      want.map((w) => [lib.productId(w.r), w.s]),
    );
    expect(out.results[0].metric).toBe('mean_objective');
  });

  it('applies the pushdown mask to the given candidates', async () => {
    const sel = normalizeSelection(
      doc([{ metric_id: 'cheese.shape', reference_id: 'q' }], {
        constraints: {
          properties: [{ type: 'property', property_id: 'heavy_atoms', operator: 'gt', value: 1000 }],
        },
      }),
      libraryFacts(lib),
    );
    const out = await executeSelection(lib, sel, {
      rows: Int32Array.from([1, 2]),
      scores: { 0: Float64Array.from([0.5, 0.6]) },
      generation: 'test',
    });
    expect(out.results).toEqual([]);
  });

  it('is capability_unavailable without external scores, and allowed when the caller offers 3D', () => {
    const sel = normalizeSelection(
      doc([{ metric_id: 'cheese.shape', reference_id: 'q' }]),
      libraryFacts(lib),
    );
    expect(() => checkCapabilities(sel)).toThrow(/cheese.shape/);
    expect(() => checkCapabilities(sel, METRIC_IDS)).not.toThrow();
  });
});
