import { describe, expect, it } from 'vitest';
import { ALIGN_PRESETS, alignShapes, applyTransform, espAtAlignment } from '../../../engine/shape/align.ts';
import { conformerCoords, type ConformerSet } from '../../../engine/shape/conformers.ts';
import { prepareShape } from '../../../engine/shape/frame.ts';
import { pairTable, shapeTanimotoAt } from '../../../engine/shape/gaussian.ts';
import { overlapAt, workspace } from '../../../engine/shape/optimize.ts';
import { alignedPairs, molecules } from './support/fixtures.ts';
import { pearson } from './support/stats.ts';

const mols = molecules();
const shapes = mols.map((m) => prepareShape(m));
const pairs = alignedPairs();

/** Rotation about a random axis by `angle`, then translation; applied to every conformer. */
function moved(set: ConformerSet, angle: number, shift: number[]): ConformerSet {
  const [ux, uy, uz] = [0.48, -0.6, 0.64];
  const c = Math.cos(angle);
  const s = Math.sin(angle);
  const r = [
    c + ux * ux * (1 - c),
    ux * uy * (1 - c) - uz * s,
    ux * uz * (1 - c) + uy * s,
    uy * ux * (1 - c) + uz * s,
    c + uy * uy * (1 - c),
    uy * uz * (1 - c) - ux * s,
    uz * ux * (1 - c) - uy * s,
    uz * uy * (1 - c) + ux * s,
    c + uz * uz * (1 - c),
  ];
  const tr = Float64Array.from([...r, ...shift]);
  return { ...set, coords: Float32Array.from(applyTransform(set.coords, tr)) };
}

describe('rigid-body shape alignment', () => {
  it('the analytic gradient equals central finite differences', () => {
    const [a, b] = [shapes[2], shapes[5]];
    const t = pairTable(b.alpha, a.alpha);
    const ws = workspace(b.atoms.length);
    const p = Float64Array.from([0.9, 0.2, -0.3, 0.1, 0.4, -0.2, 0.3]);
    const grad = new Float64Array(7);
    overlapAt(t, a.confs[0].xyz, b.confs[1].xyz, p, ws, grad, Infinity);
    for (let i = 0; i < 7; i++) {
      const h = 1e-6;
      const up = Float64Array.from(p);
      const down = Float64Array.from(p);
      up[i] += h;
      down[i] -= h;
      const fd =
        (overlapAt(t, a.confs[0].xyz, b.confs[1].xyz, up, ws, undefined, Infinity) -
          overlapAt(t, a.confs[0].xyz, b.confs[1].xyz, down, ws, undefined, Infinity)) /
        (2 * h);
      expect(Math.abs(grad[i] - fd)).toBeLessThan(1e-5 * Math.max(1, Math.abs(fd)));
    }
  });

  it('recovers a rotated and shifted copy of a molecule: Tanimoto 1, atoms back within 0.05 Å', () => {
    for (const idx of [0, 7, 11]) {
      const copy = moved(mols[idx], 2.1, [3, -4, 1.5]);
      const a = alignShapes(shapes[idx], prepareShape(copy));
      expect(a.shape).toBeGreaterThan(0.999);
      const back = applyTransform(conformerCoords(copy, a.probeConf), a.transform);
      const orig = conformerCoords(mols[idx], a.refConf);
      if (a.probeConf === a.refConf) {
        let sq = 0;
        for (let i = 0; i < back.length; i++) sq += (back[i] - orig[i]) ** 2;
        expect(Math.sqrt(sq / (back.length / 3))).toBeLessThan(0.05);
      }
      expect(espAtAlignment(shapes[idx], prepareShape(copy), a)).toBeGreaterThan(0.99);
    }
  });

  it('the transform puts the probe where the reported Tanimoto is measured', () => {
    for (const p of pairs.slice(0, 6)) {
      const a = alignShapes(shapes[p.ref], shapes[p.probe]);
      const coordsA = Float32Array.from(
        applyTransform(conformerCoords(mols[p.probe], a.probeConf), a.transform),
      );
      const direct = shapeTanimotoAt(mols[p.probe], a.probeConf, mols[p.ref], a.refConf, { coordsA });
      expect(Math.abs(direct - a.shape)).toBeLessThan(1e-5);
    }
  });

  it("matches RDKit's rdShapeAlign (same Gaussian score) over 3 x 3 conformer pairs", () => {
    const ours = pairs.map((p) => alignShapes(shapes[p.ref], shapes[p.probe]).shape);
    const rdkit = pairs.map((p) => p.rdkit_shape_align);
    const diffs = ours.map((v, i) => v - rdkit[i]);
    const mean = diffs.reduce((s, v) => s + v, 0) / diffs.length;
    expect(pearson(ours, rdkit)).toBeGreaterThan(0.9);
    expect(mean).toBeGreaterThan(-0.01);
    expect(Math.min(...diffs)).toBeGreaterThan(-0.06);
    // With every start and long refinement we reach RDKit's optimum (within 0.005) on every pair.
    const thorough = pairs.map(
      (p) =>
        alignShapes(shapes[p.ref], shapes[p.probe], { starts: 24, screen: 0, refine: 30, postIters: 100 })
          .shape,
    );
    thorough.forEach((v, i) => expect(v).toBeGreaterThan(rdkit[i] - 0.005));
  });

  it('the quality presets trade effort for overlap: very_accurate reaches RDKit, fast stays close', () => {
    const meanDiff = (preset: keyof typeof ALIGN_PRESETS) =>
      pairs
        .map(
          (p) =>
            alignShapes(shapes[p.ref], shapes[p.probe], ALIGN_PRESETS[preset]).shape - p.rdkit_shape_align,
        )
        .reduce((s, v) => s + v, 0) / pairs.length;
    expect(meanDiff('very_accurate')).toBeGreaterThan(-0.002);
    expect(meanDiff('fast')).toBeGreaterThan(-0.03);
  });
});
