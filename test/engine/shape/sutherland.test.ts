import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { alignShapes, applyTransform } from '../../../engine/shape/align.ts';
import { prepareShape } from '../../../engine/shape/frame.ts';
import { readSdf } from './support/sdf.ts';

const DIR = new URL('../../fixtures/shape/', import.meta.url);
const reference = JSON.parse(readFileSync(new URL('sutherland.json', DIR), 'utf8')) as {
  sets: Record<string, { rdkit_shape_align_rmsd: number[] }>;
};
// The same move as reference.py's: 90° about z, then a shift, so nothing is left of the given pose.
const MOVE = Float64Array.from([0, -1, 0, 1, 0, 0, 0, 0, 1, 5, -3, 2]);
const median = (a: number[]) => [...a].sort((x, y) => x - y)[a.length >> 1];
const within = (a: number[], d: number) => a.filter((v) => v < d).length / a.length;

describe('alignment recovers the Sutherland / Open3DAlign overlays (heavy-atom RMSD)', () => {
  for (const name of ['ace', 'ache', 'gpb', 'therm']) {
    it(`${name}: as often within 2 Å as RDKit's rdShapeAlign (minus 0.1)`, () => {
      const mols = readSdf(new URL(`sutherland/${name}_data.sdf.gz`, DIR));
      const tpl = mols.find((m) => m.props.IsTemplate === '1')!;
      const ref = prepareShape(tpl.set);
      const rmsd: number[] = [];
      for (const m of mols) {
        if (m === tpl) continue;
        const moved = { ...m.set, coords: Float32Array.from(applyTransform(m.set.coords, MOVE)) };
        const back = applyTransform(moved.coords, alignShapes(ref, prepareShape(moved)).transform);
        let sq = 0;
        let n = 0;
        for (let i = 0; i < m.set.atomCount; i++)
          if (m.set.elements[i] > 1) {
            n++;
            for (let d = 0; d < 3; d++) sq += (back[3 * i + d] - m.set.coords[3 * i + d]) ** 2;
          }
        rmsd.push(Math.sqrt(sq / n));
      }
      const rd = reference.sets[name].rdkit_shape_align_rmsd;
      expect(rmsd.length).toBe(rd.length);
      expect(within(rmsd, 2)).toBeGreaterThanOrEqual(within(rd, 2) - 0.1);
      expect(median(rmsd)).toBeLessThan(median(rd) + 1);
    });
  }
});
