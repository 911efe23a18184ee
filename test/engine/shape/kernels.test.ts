import { describe, expect, it } from 'vitest';
import { checkConformerSet, conformerCoords } from '../../../engine/shape/conformers.ts';
import { espSimilarity } from '../../../engine/shape/esp.ts';
import { shapeTanimotoAt } from '../../../engine/shape/gaussian.ts';
import { gridShapeTanimoto } from '../../../engine/shape/grid-tanimoto.ts';
import { fixedPoses, molecules } from './support/fixtures.ts';

const mols = molecules();
const poses = fixedPoses();

describe('shape and ESP kernels on fixed poses (reference: bench/shape/reference.py)', () => {
  it('the fixtures are valid conformer sets and hold aligned and unaligned poses', () => {
    for (const m of mols) checkConformerSet(m);
    expect(poses.filter((p) => p.aligned).length).toBeGreaterThan(10);
    expect(poses.filter((p) => !p.aligned).length).toBeGreaterThan(3);
  });

  it('Gaussian shape Tanimoto (heavy atoms, and with hydrogens) equals the reference within 1e-5', () => {
    for (const p of poses) {
      const coordsA = Float32Array.from(p.probeCoords);
      const heavy = shapeTanimotoAt(mols[p.probe], p.probeConf, mols[p.ref], p.refConf, { coordsA });
      const withH = shapeTanimotoAt(mols[p.probe], p.probeConf, mols[p.ref], p.refConf, {
        coordsA,
        hydrogens: true,
      });
      expect(Math.abs(heavy - p.gauss_shape)).toBeLessThan(1e-5);
      expect(Math.abs(withH - p.gauss_shape_h)).toBeLessThan(1e-5);
      // RDKit's PubChem shape code scores the same function, with a distance cut-off.
      expect(Math.abs(heavy - p.pubchem_shape)).toBeLessThan(1e-3);
    }
  });

  it("grid shape Tanimoto equals espsim's 1 - RDKit ShapeTanimotoDist within the grid's own noise", () => {
    const diffs = poses.map((p) => {
      const xa = Float64Array.from(p.probeCoords);
      const xb = conformerCoords(mols[p.ref], p.refConf);
      return gridShapeTanimoto(xa, mols[p.probe].elements, xb, mols[p.ref].elements) - p.grid_shape;
    });
    // Where our canonical axes have RDKit's signs the grids are the same lattice (exact); else the
    // lattice moves by under a spacing, which changes the score by a few 1e-3.
    expect(diffs.filter((d) => Math.abs(d) < 1e-9).length).toBeGreaterThan(poses.length / 2);
    for (const d of diffs) expect(Math.abs(d)).toBeLessThan(6e-3);
    expect(diffs.reduce((s, d) => s + Math.abs(d), 0) / diffs.length).toBeLessThan(2e-3);
  });

  it("ESP Carbo and Tanimoto equal espsim's 3-Gaussian integrals within 1e-5", () => {
    for (const p of poses) {
      const xa = Float64Array.from(p.probeCoords);
      const xb = conformerCoords(mols[p.ref], p.refConf);
      const qa = mols[p.probe].charges;
      const qb = mols[p.ref].charges;
      expect(Math.abs(espSimilarity(xa, qa, xb, qb, 'carbo') - p.esp_carbo)).toBeLessThan(1e-5);
      expect(Math.abs(espSimilarity(xa, qa, xb, qb, 'tanimoto') - p.esp_tanimoto)).toBeLessThan(1e-5);
    }
  });

  it('a molecule is identical to itself: shape and ESP Carbo 1', () => {
    const m = mols[0];
    expect(shapeTanimotoAt(m, 1, m, 1)).toBeCloseTo(1, 12);
    const xm = conformerCoords(m, 1);
    expect(gridShapeTanimoto(xm, m.elements, xm, m.elements)).toBe(1);
    const x = conformerCoords(m, 1);
    expect(espSimilarity(x, m.charges, x, m.charges)).toBeCloseTo(1, 12);
  });

  it('a broken conformer set is a validation error naming the field', () => {
    const bad = { ...mols[0], coords: mols[0].coords.subarray(3) };
    expect(() => checkConformerSet(bad, ['candidates', 2])).toThrow(/coords must hold/);
    try {
      checkConformerSet(bad, ['candidates', 2]);
    } catch (e) {
      expect((e as { issues: { loc: unknown[] }[] }).issues[0].loc).toEqual(['candidates', 2]);
    }
  });
});
