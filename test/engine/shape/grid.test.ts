import { describe, expect, it } from 'vitest';
import { alignShapes, applyTransform, espAtAlignment } from '../../../engine/shape/align.ts';
import { prepareShape } from '../../../engine/shape/frame.ts';
import {
  chargeGridDescriptors,
  gridDescriptors,
  gridScan,
  GRID_LENGTH,
} from '../../../engine/shape/gaussian-grid.ts';
import { poseChargeScan } from '../../../engine/shape/pose-grid.ts';
import { descriptorTable } from '../../../engine/shape/scan.ts';
import { createGridScanner } from '../../../engine/shape/wasm-grid.ts';
import { molecules } from './support/fixtures.ts';

const mols = molecules();
const shapes = mols.map((m) => prepareShape(m));
const table = descriptorTable(shapes.map(gridDescriptors), GRID_LENGTH);

describe('Gaussian grid first stage', () => {
  it('a rotated and shifted copy scores 1 against the original (frame and flips absorb the move)', () => {
    const tr = Float64Array.from([0, -1, 0, 0, 0, 1, -1, 0, 0, 4, 2, -7]);
    for (const i of [0, 6, 12]) {
      const copy = prepareShape({
        ...mols[i],
        coords: Float32Array.from(applyTransform(mols[i].coords, tr)),
      });
      const s = gridScan(gridDescriptors(copy), table, 3);
      expect(s.rows[0]).toBe(i);
      expect(s.scores[0]).toBeGreaterThan(0.9999);
    }
  });

  it('orders candidates like the exact aligned shape Tanimoto (the exact top 3 in its top 8)', () => {
    let found = 0;
    for (const q of [1, 4, 9, 14]) {
      const exact = shapes
        .map((s, i) => [i === q ? -1 : alignShapes(shapes[q], s).shape, i])
        .sort((a, b) => b[0] - a[0])
        .slice(0, 3)
        .map(([, i]) => i);
      const rows = Array.from(gridScan(gridDescriptors(shapes[q]), table, 9).rows).filter((r) => r !== q);
      found += exact.filter((i) => rows.includes(i)).length;
    }
    expect(found / 12).toBeGreaterThanOrEqual(0.75);
  });
});

describe('Gaussian grid first stage as a WebAssembly SIMD kernel', () => {
  it('scores every row like gridScan within 1e-5', () => {
    const scanner = createGridScanner(table);
    for (const q of [0, 3, 11]) {
      const query = gridDescriptors(shapes[q]);
      const js = gridScan(query, table, mols.length);
      const wasm = scanner.scan(query, mols.length);
      const jsScore = new Map(Array.from(js.rows, (r, i) => [r, js.scores[i]]));
      wasm.rows.forEach((r, i) => expect(Math.abs(wasm.scores[i] - jsScore.get(r)!)).toBeLessThan(1e-5));
      expect(wasm.rows[0]).toBe(q);
    }
  });
});

describe('charge grid (ESP-side first stage)', () => {
  const charges = descriptorTable(shapes.map(chargeGridDescriptors), GRID_LENGTH);

  it('a moved copy scores cosine 1 against the original', () => {
    const tr = Float64Array.from([0, -1, 0, 0, 0, 1, -1, 0, 0, 4, 2, -7]);
    for (const i of [2, 9]) {
      const copy = prepareShape({
        ...mols[i],
        coords: Float32Array.from(applyTransform(mols[i].coords, tr)),
      });
      const s = gridScan(chargeGridDescriptors(copy), charges, 3, 'cosine');
      expect(s.rows[0]).toBe(i);
      expect(s.scores[0]).toBeGreaterThan(0.9999);
    }
  });

  it('recalls the exact ESP ranking better than the shape grid does', () => {
    let byCharge = 0;
    let byShape = 0;
    for (const q of [1, 4, 9, 14, 6, 11]) {
      const exact = shapes
        .map((s, i) => [i === q ? -9 : espAtAlignment(shapes[q], s, alignShapes(shapes[q], s)), i])
        .sort((a, b) => b[0] - a[0])
        .slice(0, 3)
        .map(([, i]) => i);
      const top = (t: typeof table, d: Float32Array, m: 'tanimoto' | 'cosine') =>
        Array.from(gridScan(d, t, 9, m).rows).filter((r) => r !== q);
      const c = top(charges, chargeGridDescriptors(shapes[q]), 'cosine');
      const s = top(table, gridDescriptors(shapes[q]), 'tanimoto');
      byCharge += exact.filter((i) => c.includes(i)).length;
      byShape += exact.filter((i) => s.includes(i)).length;
    }
    expect(byCharge).toBeGreaterThan(byShape);
  });
});

describe("pose-aware charge grid (the ESP pre-stage's pool)", () => {
  const charges = descriptorTable(shapes.map(chargeGridDescriptors), GRID_LENGTH);
  const tables = { shape: table, charge: charges };
  const byRow = (sl: { rows: Uint32Array; scores: Float32Array }) =>
    new Map(Array.from(sl.rows, (r, i) => [r, sl.scores[i]]));

  it('a moved copy ranks first with cosine 1', () => {
    const tr = Float64Array.from([0, -1, 0, 0, 0, 1, -1, 0, 0, 4, 2, -7]);
    for (const i of [2, 9]) {
      const copy = prepareShape({
        ...mols[i],
        coords: Float32Array.from(applyTransform(mols[i].coords, tr)),
      });
      const s = poseChargeScan(gridDescriptors(copy), chargeGridDescriptors(copy), tables, 3);
      expect(s.rows[0]).toBe(i);
      expect(s.scores[0]).toBeGreaterThan(0.9999);
    }
  });

  it('with unlimited slack is the best charge cosine over all poses (gridScan cosine)', () => {
    for (const q of [1, 7]) {
      const pose = byRow(
        poseChargeScan(gridDescriptors(shapes[q]), chargeGridDescriptors(shapes[q]), tables, 16, Infinity),
      );
      const all = byRow(gridScan(chargeGridDescriptors(shapes[q]), charges, 16, 'cosine'));
      for (const [r, v] of all) expect(pose.get(r)).toBeCloseTo(v, 5);
    }
  });

  it('a row scores no more with less slack (fewer poses count), the best charge cosine at most', () => {
    const q = 4;
    const at = (slack: number) =>
      byRow(poseChargeScan(gridDescriptors(shapes[q]), chargeGridDescriptors(shapes[q]), tables, 16, slack));
    const [none, some, all] = [at(0), at(0.05), at(Infinity)];
    let differ = 0;
    for (let r = 0; r < mols.length; r++) {
      expect(none.get(r)!).toBeLessThanOrEqual(some.get(r)! + 1e-7);
      expect(some.get(r)!).toBeLessThanOrEqual(all.get(r)! + 1e-7);
      if (none.get(r)! < all.get(r)! - 1e-3) differ++;
    }
    // The shape pose constrains the charges: for some rows the best charge overlay is elsewhere.
    expect(differ).toBeGreaterThan(0);
  });
});
