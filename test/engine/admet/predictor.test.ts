import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DESCRIPTOR_NAMES } from '../../../engine/chem/descriptors.ts';
import {
  ADMET_ENDPOINTS,
  createAdmetPredictor,
  oodNames,
  type AdmetPredictor,
} from '../../../engine/admet/index.ts';

// Python references: onnxruntime scores + models/domain.py flags (models/make_prediction_fixture.py)
// and Python RDKit canonical SMILES and descriptors (test/fixtures/rdkit-reference.json).
const fixture = JSON.parse(
  readFileSync(new URL('./fixtures/predictions-sample.json', import.meta.url), 'utf8'),
) as {
  model_version: string;
  smiles: string[];
  endpoints: Record<string, { score: number[]; in_domain: number[] }>;
};
const rdkitRef = JSON.parse(
  readFileSync(new URL('../../fixtures/rdkit-reference.json', import.meta.url), 'utf8'),
) as {
  molecules: { input: string; canonical: string; descriptors: Record<string, number> }[];
};

let predictor: AdmetPredictor;
beforeAll(async () => {
  // Small batches so one request spans several batches (and both threads), exercising the re-assembly.
  predictor = await createAdmetPredictor({ threads: 2, batchRows: 64 });
}, 60_000);
afterAll(async () => predictor?.close());

describe('ADMET predictor (worker threads)', () => {
  it('answers a one-molecule request before a 1,500-molecule one queued first ends (first batches go ahead)', async () => {
    const big = Array.from({ length: 1500 }, (_, i) => fixture.smiles[i % fixture.smiles.length]);
    let bigDone = 0;
    const large = predictor.predictSmiles(big).then((t) => ((bigDone = Date.now()), t));
    await new Promise((r) => setTimeout(r, 20));
    const one = await predictor.predictSmiles([fixture.smiles[0]]);
    const oneDone = Date.now();
    expect(one.n).toBe(1);
    expect((await large).n).toBe(1500);
    expect(oneDone).toBeLessThan(bigDone);
  });

  it('withdraws the queued batches of a request whose client went away', async () => {
    const gone = new AbortController();
    const big = Array.from({ length: 1500 }, (_, i) => fixture.smiles[i % fixture.smiles.length]);
    const p = predictor.predictSmiles(big, { signal: gone.signal }).catch((e: unknown) => e);
    gone.abort(new Error('client closed the connection'));
    expect(await p).toMatchObject({ message: expect.stringContaining('client closed the connection') });
  });

  it('reports the version of the committed models', () => {
    expect(predictor.modelVersion).toBe(fixture.model_version);
  });

  it('scores the fixture molecules as Python onnxruntime does (1e-5), in input order, with the same domain flags', async () => {
    const t = await predictor.predictSmiles(fixture.smiles);
    expect(t.n).toBe(fixture.smiles.length);
    expect(t.errors.every((e) => e === null)).toBe(true);
    ADMET_ENDPOINTS.forEach((key, e) => {
      const want = fixture.endpoints[key];
      for (let i = 0; i < t.n; i++) {
        const got = t.scores[e * t.n + i];
        expect(
          Math.abs(got - want.score[i]) / Math.max(1, Math.abs(want.score[i])),
          `${key} row ${i}`,
        ).toBeLessThanOrEqual(1e-5);
        expect(((t.ood[i] >>> e) & 1) === 0 ? 1 : 0, `${key} row ${i} domain`).toBe(want.in_domain[i]);
      }
    });
    // Some molecules of this set are outside some model's domain: the flag is really exercised.
    expect(Array.from(t.ood).some((m) => m !== 0)).toBe(true);
  });

  it('gives canonical SMILES and the 11 descriptors equal to Python RDKit', async () => {
    const mols = rdkitRef.molecules;
    expect(mols.some((m) => m.descriptors.formal_charge !== 0)).toBe(true);
    const t = await predictor.predictSmiles(mols.map((m) => m.input));
    mols.forEach((m, i) => {
      expect(t.canonical[i]).toBe(m.canonical);
      DESCRIPTOR_NAMES.forEach((d, j) =>
        expect(t.descriptors[i * DESCRIPTOR_NAMES.length + j], `${m.input} ${d}`).toBeCloseTo(
          m.descriptors[d],
          6,
        ),
      );
    });
  });

  it('answers a row error for bad input and keeps the other rows', async () => {
    const t = await predictor.predictSmiles(['CCO', 'C1CC', '', '[H][H]', 'c1ccccc1O']);
    expect(t.errors).toEqual([null, 'unparsable SMILES', 'empty SMILES', 'no heavy atoms', null]);
    expect(t.canonical).toEqual(['CCO', null, null, null, 'Oc1ccccc1']);
    expect(Number.isNaN(t.scores[1])).toBe(true);
    expect(Number.isFinite(t.scores[4])).toBe(true);
    expect(t.ood[1]).toBe(0);
  });

  it('names the endpoints of an out-of-domain mask in endpoint order', () => {
    expect(oodNames(0)).toEqual([]);
    expect(oodNames((1 << 0) | (1 << 19) | (1 << 21))).toEqual(['caco2_wang', 'herg', 'pgp_broccatelli']);
  });
});
