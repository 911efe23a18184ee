import { describe, expect, it } from 'vitest';
import { describeConformers, DESCRIPTOR_LENGTH } from '../../../engine/shape/descriptors.ts';
import { descriptorTable, scanShortlist } from '../../../engine/shape/scan.ts';
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
