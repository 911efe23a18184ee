import { describe, expect, it } from 'vitest';
import { describeConformers, DESCRIPTOR_LENGTH } from '../../../engine/shape/descriptors.ts';
import { descriptorTable, scanShortlist } from '../../../engine/shape/scan.ts';
import { createUsrScanner } from '../../../engine/shape/wasm-scan.ts';
import { molecules } from './support/fixtures.ts';

const mols = molecules();

describe('first-stage descriptors and scan', () => {
  it("the heavy-atom subset's 12 moments equal RDKit's GetUSR", () => {
    for (const m of mols) {
      const d = describeConformers(m);
      for (let c = 0; c < m.confCount; c++)
        for (let i = 0; i < 12; i++)
          expect(Math.abs(d[c * DESCRIPTOR_LENGTH + i] - m.usr[c][i])).toBeLessThan(1e-4);
    }
  });

  it('scanning finds a molecule itself first and returns k rows best first', () => {
    const table = descriptorTable(mols.map(describeConformers));
    for (const q of [0, 5, 9]) {
      const s = scanShortlist(describeConformers(mols[q]), table, 5);
      expect(s.rows[0]).toBe(q);
      expect(s.scores[0]).toBeCloseTo(1, 6);
      expect(s.rows.length).toBe(5);
      for (let i = 1; i < 5; i++) expect(s.scores[i]).toBeLessThanOrEqual(s.scores[i - 1]);
    }
  });

  it('scores the best conformer pair of rows with different conformer counts', () => {
    const one = { ...mols[3], confCount: 1, coords: mols[3].coords.subarray(0, mols[3].atomCount * 3) };
    const table = descriptorTable([describeConformers(one), describeConformers(mols[3])]);
    // Query = the second conformer only: the 3-conformer row matches exactly, the 1-conformer one not.
    const q = describeConformers(mols[3]).subarray(DESCRIPTOR_LENGTH, 2 * DESCRIPTOR_LENGTH);
    const s = scanShortlist(q, table, 2);
    expect(Array.from(s.rows)).toEqual([1, 0]);
    expect(s.scores[0]).toBeCloseTo(1, 6);
    expect(s.scores[1]).toBeLessThan(1);
  });
});

describe('WebAssembly SIMD scan', () => {
  it('ranks like the JS scan, scores within 1e-6', () => {
    const perRow = mols.map(describeConformers);
    // Rows with 1..3 conformers, so conformer offsets vary.
    perRow[2] = perRow[2].subarray(0, DESCRIPTOR_LENGTH);
    perRow[6] = perRow[6].subarray(0, 2 * DESCRIPTOR_LENGTH);
    const table = descriptorTable(perRow);
    const scanner = createUsrScanner(table);
    for (const q of [1, 2, 8]) {
      const query = describeConformers(mols[q]);
      const js = scanShortlist(query, table, mols.length);
      const wasm = scanner.scan(query, mols.length);
      const jsScore = new Map(Array.from(js.rows, (r, i) => [r, js.scores[i]]));
      wasm.rows.forEach((r, i) => expect(Math.abs(wasm.scores[i] - jsScore.get(r)!)).toBeLessThan(1e-6));
      expect(wasm.rows[0]).toBe(q);
      expect(Array.from(scanner.scan(query, 4).rows)).toEqual(Array.from(wasm.rows.subarray(0, 4)));
    }
  });
});
