import { afterAll, describe, expect, it } from 'vitest';
import { createShapePool } from '../../../engine/shape/pool.ts';
import { scoreShortlist } from '../../../engine/shape/score.ts';
import { espIntegral, espSimilarity } from '../../../engine/shape/esp.ts';
import { unitTanimoto } from '../../../engine/shape/gaussian.ts';
import { reciprocalRankFusion } from '../../../engine/search/fusion.ts';
import { alignedPairs, molecules } from './support/fixtures.ts';
import { pearson } from './support/stats.ts';

const mols = molecules();
const pairs = alignedPairs();
const pool = createShapePool({ threads: 2 });
afterAll(() => pool.close());

describe('scoreShortlist', () => {
  it('ranks the query molecule itself first with shape 1 and ESP 1, and cuts to k', () => {
    const r = scoreShortlist(mols[4], mols, { metric: 'shape', k: 5 });
    expect(r.length).toBe(5);
    expect(r[0].index).toBe(4);
    expect(r[0].shape).toBeGreaterThan(0.999);
    expect(r[0].esp).toBeGreaterThan(0.99);
    for (let i = 1; i < r.length; i++) expect(r[i].shape).toBeLessThanOrEqual(r[i - 1].shape);
  });

  it("scores espsim's grid shape at the pose: closer to espsim's scores than the Gaussian Tanimoto", () => {
    // aligned.json: espsim's EmbedAlignScore procedure on the same 3 x 3 conformers (O3A poses).
    const scored = pairs.map(
      (p) => scoreShortlist(mols[p.ref], [mols[p.probe]], { metric: 'shape', k: 1 })[0],
    );
    const espsim = pairs.map((p) => p.espsim_grid_shape);
    const grid = pearson(
      scored.map((s) => s.shape),
      espsim,
    );
    const gaussian = pearson(
      scored.map((s) => s.gaussian),
      espsim,
    );
    expect(grid).toBeGreaterThan(0.91);
    expect(grid).toBeGreaterThan(gaussian);
    // Our pose is a shape optimum, O3A's an atom mapping: the grid score there is at least espsim's
    // on average, and never far below it.
    const gaps = scored.map((s, i) => s.shape - espsim[i]);
    expect(gaps.reduce((a, b) => a + b, 0) / gaps.length).toBeGreaterThan(0);
    for (const g of gaps) expect(g).toBeGreaterThan(-0.03);
  });

  it('never scores a self-pair past 1: shape, Gaussian shape and ESP stay in their ranges', () => {
    // A self-pair's overlap and self-volumes differ in the last bits (1.0000000000000049 was served).
    for (const [i, m] of mols.entries()) {
      const [self] = scoreShortlist(m, [m], { metric: 'esp', k: 1 });
      expect(self.shape, `molecule ${i}`).toBeLessThanOrEqual(1);
      expect(self.gaussian, `molecule ${i}`).toBeLessThanOrEqual(1);
      expect(self.esp, `molecule ${i}`).toBeLessThanOrEqual(1);
    }
  });

  it('clamps the score functions: Carbo and Tanimoto at most 1, shape Tanimoto in [0, 1], fusion at most 1', () => {
    // Two charged atoms; cached self integrals a few ulps below ⟨AB⟩, as rounding leaves them.
    const x = [0, 0, 0, 1.2, 0, 0];
    const q = [0.4, -0.4];
    const self = espIntegral(x, q, x, q) * (1 - 4e-16);
    expect(espSimilarity(x, q, x, q, 'carbo', self, self)).toBe(1);
    expect(espSimilarity(x, q, x, q, 'tanimoto', self, self)).toBe(1);
    expect(espSimilarity(x, q, x, [-0.4, 0.4], 'carbo', self, self)).toBe(-1);
    expect(unitTanimoto(1 + 1e-15, 1, 1)).toBe(1);
    expect(unitTanimoto(-1e-18, 1, 1)).toBe(0);
    for (const v of reciprocalRankFusion([
      [3, 2, 1],
      [3, 1, 2],
      [3, 2, 2],
    ]))
      expect(v).toBeLessThanOrEqual(1);
  });

  it("orders by ESP for metric 'esp'", () => {
    const r = scoreShortlist(mols[4], mols.slice(0, 8), { metric: 'esp', k: 8 });
    for (let i = 1; i < r.length; i++) expect(r[i].esp).toBeLessThanOrEqual(r[i - 1].esp);
  });

  it('bad options and candidates are validation errors naming the field', () => {
    expect(() => scoreShortlist(mols[0], mols, { metric: 'color' as 'shape', k: 3 })).toThrow(
      /metric must be one of/,
    );
    expect(() => scoreShortlist(mols[0], mols, { metric: 'shape', k: 0 })).toThrow(/k must be/);
    const broken = { ...mols[1], charges: new Float32Array(2) };
    try {
      scoreShortlist(mols[0], [mols[2], broken], { metric: 'shape', k: 3 });
      expect.unreachable();
    } catch (e) {
      expect((e as { code: string }).code).toBe('validation_error');
      expect((e as { issues: { loc: unknown[] }[] }).issues[0].loc).toEqual(['candidates', 1]);
    }
  });

  it('the thread pool returns exactly the serial result', async () => {
    const serial = scoreShortlist(mols[7], mols, { metric: 'shape', k: 10 });
    const pooled = await pool.scoreShortlist(mols[7], mols, { metric: 'shape', k: 10 });
    expect(pooled.map((s) => s.index)).toEqual(serial.map((s) => s.index));
    pooled.forEach((s, i) => {
      expect(s.shape).toBe(serial[i].shape);
      expect(s.esp).toBe(serial[i].esp);
    });
    await expect(pool.scoreShortlist(mols[7], mols, { metric: 'esp', k: -1 })).rejects.toThrow(/k must be/);
  });
});
