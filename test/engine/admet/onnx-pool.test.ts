import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMET_NAMES } from '../../../engine/catalog/schema.ts';
import { getRDKit } from '../../../engine/chem/rdkit.ts';
import { ADMET_ENDPOINTS } from '../../../engine/admet/endpoints.ts';
import { ADMET_FEATURE_LENGTH, computeAdmetFeatures } from '../../../engine/admet/features.ts';
import { openAdmetModels, type AdmetModels } from '../../../engine/admet/onnx-pool.ts';

// Made by models/make_prediction_fixture.py: Python onnxruntime scores and models/domain.py flags
// for the 200 feature-fixture molecules, per endpoint.
const fixture = JSON.parse(
  readFileSync(new URL('./fixtures/predictions-sample.json', import.meta.url), 'utf8'),
) as {
  model_version: string;
  smiles: string[];
  endpoints: Record<string, { score: number[]; in_domain: number[] }>;
};

let models: AdmetModels;
beforeAll(async () => {
  models = await openAdmetModels({ verifyChecksums: true });
});
afterAll(async () => {
  await models?.close();
});

describe('ADMET model pool', () => {
  it('serves the 22 endpoints of the catalog schema, from the model version of the fixture', () => {
    expect([...ADMET_ENDPOINTS]).toEqual([...ADMET_NAMES]);
    expect(Object.keys(models.manifest.endpoints)).toEqual([...ADMET_ENDPOINTS]);
    expect(models.manifest.version).toBe(fixture.model_version);
  });

  it('predicts what Python onnxruntime predicts on the fixture molecules (1e-5) with the same domain flags', async () => {
    const rd = await getRDKit();
    const { features, ok, n } = computeAdmetFeatures(rd, fixture.smiles);
    expect(ok.every((v) => v === 1)).toBe(true);
    const res = await models.predictBatch(features, n);
    for (const key of ADMET_ENDPOINTS) {
      const want = fixture.endpoints[key];
      const got = res.scores[key];
      expect(got.length).toBe(n);
      let worst = 0;
      for (let i = 0; i < n; i++)
        worst = Math.max(worst, Math.abs(got[i] - want.score[i]) / Math.max(1, Math.abs(want.score[i])));
      expect(worst, key).toBeLessThanOrEqual(1e-5);
      expect([...res.inDomain[key]], key).toEqual(want.in_domain);
    }
  });

  it('gives probabilities in [0, 1] for classifiers and some out-of-domain flags for an odd molecule', async () => {
    const rd = await getRDKit();
    const { features } = computeAdmetFeatures(rd, [
      'CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC[Si](C)(C)O[Si](C)(C)C',
    ]);
    const res = await models.predictBatch(features, 1);
    for (const key of ADMET_ENDPOINTS) {
      if (models.manifest.endpoints[key].task !== 'binary') continue;
      expect(res.scores[key][0]).toBeGreaterThanOrEqual(0);
      expect(res.scores[key][0]).toBeLessThanOrEqual(1);
    }
    expect(ADMET_ENDPOINTS.some((k) => res.inDomain[k][0] === 0)).toBe(true);
  });

  it('rejects a feature buffer whose length does not match the row count', async () => {
    await expect(models.predictBatch(new Float32Array(ADMET_FEATURE_LENGTH), 2)).rejects.toThrow(RangeError);
  });

  it('answers an empty batch with empty arrays', async () => {
    const res = await models.predictBatch(new Float32Array(0), 0);
    expect(res.scores.ames.length).toBe(0);
  });
});
