/**
 * Where our shape score departs from espsim's on the same conformers:
 * `node bench/shape/diagnose.ts [--pairs 2000] [--worst 12] [--dir bench/out/shape]`, after `reference.py bench`.
 *
 * The reference records, per pair, espsim's winning O3A pose and RDKit's grid shape at its own
 * Gaussian optimum; this scores every pair several ways and correlates each with espsim's score, so
 * the departure splits into its parts:
 * - metric: our grid Tanimoto at espsim's pose (must equal espsim's score: the kernel) and our
 *   Gaussian Tanimoto at that same pose (what the Gaussian function alone costs);
 * - pose: RDKit's grid at RDKit's Gaussian optimum, ours at ours (what a shape-optimal pose instead
 *   of O3A's atom mapping costs), best over the top-k refined poses.
 * Output: bench/out/shape/diagnose.json and a summary on stdout.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { alignShapes, applyTransform, type Alignment } from '../../engine/shape/align.ts';
import { conformerCoords, type ConformerSet } from '../../engine/shape/conformers.ts';
import { prepareShape } from '../../engine/shape/frame.ts';
import { shapeTanimotoAt } from '../../engine/shape/gaussian.ts';
import { gridShapeTanimoto } from '../../engine/shape/grid-tanimoto.ts';
import { pearson, r3, spearman } from './stats.ts';

const argv = process.argv.slice(2);
const DIR = resolve(
  argv.includes('--dir') ? argv[argv.indexOf('--dir') + 1] : join(import.meta.dirname, '../out/shape'),
);
const arg = (name: string, def: number): number =>
  argv.includes(name) ? Number(argv[argv.indexOf(name) + 1]) : def;

interface Pose {
  probe_conf: number;
  ref_conf: number;
  probe_coords: number[];
}
interface PairRow {
  probe: number;
  ref: number;
  rdkit_shape_align: number;
  espsim_grid_shape: number;
  rdkit_align_grid_shape?: number;
  rdkit_align_grid_at_best?: number;
  espsim_pose?: Pose;
}
interface Rec {
  id: string;
  atomCount: number;
  confCount: number;
  elements: number[];
  charges: number[];
  coords: number[];
}
const toSet = (m: Rec): ConformerSet => ({
  atomCount: m.atomCount,
  confCount: m.confCount,
  elements: Uint8Array.from(m.elements),
  charges: Float32Array.from(m.charges),
  coords: Float32Array.from(m.coords),
});
const recs = (JSON.parse(readFileSync(join(DIR, 'molecules.json'), 'utf8')) as { molecules: Rec[] })
  .molecules;
const sets = recs.map(toSet);
const prepared = sets.map((s) => prepareShape(s));
const pairs = (JSON.parse(readFileSync(join(DIR, 'pairs.json'), 'utf8')) as { pairs: PairRow[] }).pairs.slice(
  0,
  arg('--pairs', 2000),
);

const gridAt = (ref: number, probe: number, a: Alignment): number => {
  const xp = applyTransform(conformerCoords(sets[probe], a.probeConf), a.transform);
  return gridShapeTanimoto(
    xp,
    sets[probe].elements,
    conformerCoords(sets[ref], a.refConf),
    sets[ref].elements,
  );
};

const cols: Record<string, number[]> = {};
const push = (k: string, v: number) => (cols[k] ??= []).push(v);
for (const p of pairs) {
  const ref = sets[p.ref];
  const probe = sets[p.probe];
  push('espsim', p.espsim_grid_shape);
  push('rdkit_gauss', p.rdkit_shape_align);
  if (p.rdkit_align_grid_shape !== undefined) push('rdkit_grid_best', p.rdkit_align_grid_shape);
  if (p.rdkit_align_grid_at_best !== undefined) push('rdkit_grid_at_gauss_best', p.rdkit_align_grid_at_best);
  if (p.espsim_pose) {
    const e = p.espsim_pose;
    const xp = Float64Array.from(e.probe_coords);
    const xr = conformerCoords(ref, e.ref_conf);
    push('ours_grid_at_o3a', gridShapeTanimoto(xp, probe.elements, xr, ref.elements));
    push(
      'gauss_at_o3a',
      shapeTanimotoAt(probe, e.probe_conf, ref, e.ref_conf, { coordsA: Float32Array.from(xp) }),
    );
  }
  for (const [name, opts] of [
    ['accurate', {}],
    ['very_accurate', { starts: 24, screen: 48, preIters: 4, refine: 10, postIters: 50 }],
  ] as const) {
    const a = alignShapes(prepared[p.ref], prepared[p.probe], opts);
    const grids = (a.poses ?? [a]).map((pose) => gridAt(p.ref, p.probe, pose));
    push(`${name}_gauss`, a.shape);
    push(`${name}_grid_at_best`, grids[0]);
    for (const k of [2, 3, 6, 10])
      if (k <= grids.length) push(`${name}_grid_top${k}`, Math.max(...grids.slice(0, k)));
  }
}
const summary: Record<string, { pearson: string; spearman: string; mean: string }> = {};
for (const [k, v] of Object.entries(cols))
  if (v.length === cols.espsim.length)
    summary[k] = {
      pearson: r3(pearson(v, cols.espsim)),
      spearman: r3(spearman(v, cols.espsim)),
      mean: r3(v.reduce((s, x) => s + x, 0) / v.length),
    };
console.table(summary);
// The worst pairs: where our default score departs most from espsim's, with what the pose explains.
const ours = cols.accurate_grid_at_best;
const worst = pairs
  .map((p, i) => ({ p, i, gap: Math.abs(ours[i] - cols.espsim[i]) }))
  .sort((a, b) => b.gap - a.gap)
  .slice(0, arg('--worst', 12))
  .map(({ p, i }) => ({
    pair: i,
    probe: recs[p.probe].id,
    ref: recs[p.ref].id,
    espsim: r3(cols.espsim[i]),
    grid_at_o3a: cols.ours_grid_at_o3a ? r3(cols.ours_grid_at_o3a[i]) : null,
    ours_grid: r3(ours[i]),
    ours_gauss: r3(cols.accurate_gauss[i]),
    rdkit_gauss: r3(p.rdkit_shape_align),
    gauss_at_o3a: cols.gauss_at_o3a ? r3(cols.gauss_at_o3a[i]) : null,
  }));
console.table(worst);
writeFileSync(join(DIR, 'diagnose.json'), JSON.stringify({ pairs: pairs.length, summary, worst }, null, 1));
