import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ALIGN_PRESETS, alignShapes, applyTransform } from '../../../engine/shape/align.ts';
import { prepareShape } from '../../../engine/shape/frame.ts';
import { readSdf } from './support/sdf.ts';

// Crystal-pose recovery from embedded poses (issue 9): each ligand's ETKDG conformers, made from its
// graph alone by bench/shape/reference.py (sutherland-embedded), aligned onto the template's given
// pose; the best-scoring conformer's heavy-atom RMSD to the ligand's given (crystal-derived) pose,
// beside RDKit's rdShapeAlign doing the same on the same conformers. No symmetry correction, the
// same for both. Alignment effort: `very_accurate` (SUTHERLAND_PRESET to try another).
interface Ligand {
  name: string;
  atoms: number;
  confs: number;
  coords_milli: number[];
  rdkit_rmsd: number;
  rdkit_min_rmsd: number;
}
const DIR = new URL('../../fixtures/shape/', import.meta.url);
const FIX = JSON.parse(gunzipSync(readFileSync(new URL('sutherland-embedded.json.gz', DIR))).toString()) as {
  sets: Record<string, { template: string; ligands: Ligand[] }>;
};
const PRESET = (process.env.SUTHERLAND_PRESET ?? 'very_accurate') as keyof typeof ALIGN_PRESETS;
const median = (a: number[]) => [...a].sort((x, y) => x - y)[a.length >> 1];
const within = (a: number[], d: number) => a.filter((v) => v < d).length / a.length;

/**
 * Stated thresholds. The RMSDs are bimodal (the right overlay, or a flipped or shifted one at 4–7 Å),
 * so the measure is the fraction within 2 Å, not the median: per set of 15 at most 2 ligands fewer
 * than RDKit's; over the 60, at least 35 % (RDKit: 0.43; `very_accurate` measured 0.42, the
 * default `accurate` preset 0.37), and at most 3 ligands fewer than RDKit's.
 */
const ALL_WITHIN_2A = 0.35;

describe('alignment of embedded conformers recovers the Sutherland / Open3DAlign poses', () => {
  const all: { ours: number[]; rdkit: number[] } = { ours: [], rdkit: [] };
  for (const [name, set] of Object.entries(FIX.sets)) {
    it(`${name}: best-shape conformer's RMSD to the given pose within 2 Å as often as RDKit's (at most 2 of 15 fewer)`, () => {
      const mols = readSdf(new URL(`sutherland/${name}_data.sdf.gz`, DIR));
      const tpl = mols.find((m) => m.props.IsTemplate === '1')!;
      const ref = prepareShape(tpl.set);
      const ours: number[] = [];
      for (const lig of set.ligands) {
        const given = mols.find((m) => m.name === lig.name)!;
        expect(given.set.atomCount).toBe(lig.atoms);
        const coords = Float32Array.from(lig.coords_milli, (v) => v / 1000);
        const probe = { ...given.set, confCount: lig.confs, coords };
        const a = alignShapes(ref, prepareShape(probe), ALIGN_PRESETS[PRESET]);
        const n3 = lig.atoms * 3;
        const back = applyTransform(coords.subarray(a.probeConf * n3, (a.probeConf + 1) * n3), a.transform);
        let sq = 0;
        let n = 0;
        for (let i = 0; i < lig.atoms; i++)
          if (given.set.elements[i] > 1) {
            n++;
            for (let d = 0; d < 3; d++) sq += (back[3 * i + d] - given.set.coords[3 * i + d]) ** 2;
          }
        ours.push(Math.sqrt(sq / n));
      }
      const rdkit = set.ligands.map((l) => l.rdkit_rmsd);
      all.ours.push(...ours);
      all.rdkit.push(...rdkit);
      console.info(
        `${name}: ours median ${median(ours).toFixed(2)} Å, ${within(ours, 2).toFixed(2)} within 2 Å; ` +
          `RDKit ${median(rdkit).toFixed(2)} Å, ${within(rdkit, 2).toFixed(2)}; ` +
          `best conformer ${median(set.ligands.map((l) => l.rdkit_min_rmsd)).toFixed(2)} Å`,
      );
      expect(within(ours, 2)).toBeGreaterThanOrEqual(within(rdkit, 2) - 2 / 15 - 1e-9);
    });
  }
  it(`all sets: at least ${ALL_WITHIN_2A * 100} % of ligands within 2 Å, at most 3 of 60 fewer than RDKit`, () => {
    expect(all.ours.length).toBe(60);
    console.info(
      `all: ours ${within(all.ours, 2).toFixed(2)} within 2 Å (median ${median(all.ours).toFixed(2)}), ` +
        `RDKit ${within(all.rdkit, 2).toFixed(2)} (median ${median(all.rdkit).toFixed(2)})`,
    );
    expect(within(all.ours, 2)).toBeGreaterThanOrEqual(ALL_WITHIN_2A);
    expect(within(all.ours, 2)).toBeGreaterThanOrEqual(within(all.rdkit, 2) - 3 / 60 - 1e-9);
  });
});
