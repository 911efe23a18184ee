/**
 * 3D shape and ESP benchmark: `node bench/shape/run.ts [--pairs 2000] [--queries 20] [--speed-pairs 60]
 * [--speed-rounds 3] [--no-recall]`.
 * Input: bench/out/shape/{molecules,pairs}.json from `reference.py bench` (DUD-E subset molecules,
 * 3 ETKDGv3 conformers each, Gasteiger charges; reference scores of random pairs).
 *
 * 1. Accuracy: our shape score (espsim's grid Tanimoto, best of our best refined poses; the Gaussian
 *    Tanimoto of the best Gaussian pose beside it) and ESP Carbo (at the kept pose) per pair,
 *    Pearson and Spearman r against espsim's procedure (O3A alignment, grid shape, ESP there) and
 *    against RDKit's Gaussian shape alignment; beside espsim's own seed-to-seed r.
 * 2. Speed, same run: our alignments per conformer pair against RDKit's rdShapeAlign.AlignMol
 *    (and espsim's O3A + grid step) on the same pairs, one thread each (rdkit_speed.py).
 * 3. Recall: for --queries actives (one per target first), exhaustive exact scoring of every
 *    molecule, then recall@30 of the first-stage scan (USRCAT-style descriptors) per shortlist size.
 * Results go to bench/out/shape/results.json and a summary to stdout.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import {
  alignShapes,
  bestEspOverPoses,
  bestGridPose,
  espAtAlignment,
  GRID_POSES,
} from '../../engine/shape/align.ts';
import { describeConformers } from '../../engine/shape/descriptors.ts';
import {
  chargeGridDescriptors,
  gridDescriptors,
  gridScan,
  GRID_LENGTH,
} from '../../engine/shape/gaussian-grid.ts';
import { prepareShape } from '../../engine/shape/frame.ts';
import { descriptorTable, scanShortlist } from '../../engine/shape/scan.ts';
import { createUsrScanner } from '../../engine/shape/wasm-scan.ts';
import type { ConformerSet } from '../../engine/shape/conformers.ts';
import { meanOf, pearson, r3, recall, spearman } from './stats.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const DIR = resolve(
  process.argv.includes('--dir')
    ? process.argv[process.argv.indexOf('--dir') + 1]
    : join(ROOT, 'bench/out/shape'),
);
// The pinned bench venv, else the 3D worker's (same RDKit pin).
const PY = ['.tools/shapebench/bin/python', '.tools/chem3d/bin/python']
  .map((p) => join(ROOT, p))
  .find((p) => existsSync(p))!;
const argv = process.argv.slice(2);
const arg = (name: string, def: number): number =>
  argv.includes(name) ? Number(argv[argv.indexOf(name) + 1]) : def;

interface PairRow {
  probe: number;
  ref: number;
  rdkit_shape_align: number;
  espsim_grid_shape: number;
  espsim_esp_carbo: number;
  espsim_grid_shape_seed7?: number;
  espsim_esp_carbo_seed7?: number;
}
interface Record_ {
  atomCount: number;
  confCount: number;
  elements: number[];
  charges: number[];
  coords: number[];
  target: string;
  active: boolean;
}
const toSet = (m: Record_): ConformerSet => ({
  atomCount: m.atomCount,
  confCount: m.confCount,
  elements: Uint8Array.from(m.elements),
  charges: Float32Array.from(m.charges),
  coords: Float32Array.from(m.coords),
});

const molsJson = JSON.parse(readFileSync(join(DIR, 'molecules.json'), 'utf8')) as { molecules: Record_[] };
const pairsJson = JSON.parse(readFileSync(join(DIR, 'pairs.json'), 'utf8')) as {
  meta: Record<string, unknown>;
  pairs: PairRow[];
};
const records = molsJson.molecules;
const sets = records.map(toSet);
const prepared = sets.map((s) => prepareShape(s));
const pairs = pairsJson.pairs.slice(0, arg('--pairs', 2000));
const results: Record<string, unknown> = { load_before: loadavg() };

const onlyRecall = argv.includes('--only-recall');
// 1. Accuracy (and our time per conformer pair over all pairs).
// shape: the service's score (scoreShortlist: espsim's grid Tanimoto, best of the GRID_POSES best
// refined poses); esp at that pose; gaussian and espGauss: at the best Gaussian pose (our scores
// until 2026-11-24).
const ours = {
  shape: [] as number[],
  gaussian: [] as number[],
  esp: [] as number[],
  espGauss: [] as number[],
  espBest: [] as number[],
};
let alignMs = 0;
let confPairs = 0;
for (const p of onlyRecall ? [] : pairs) {
  const t0 = performance.now();
  const a = alignShapes(prepared[p.ref], prepared[p.probe]);
  const g = bestGridPose(prepared[p.ref], prepared[p.probe], a);
  alignMs += performance.now() - t0;
  confPairs += prepared[p.ref].confs.length * prepared[p.probe].confs.length;
  ours.shape.push(g.shape);
  ours.gaussian.push(a.shape);
  ours.esp.push(espAtAlignment(prepared[p.ref], prepared[p.probe], g.pose));
  ours.espGauss.push(espAtAlignment(prepared[p.ref], prepared[p.probe], a));
  ours.espBest.push(bestEspOverPoses(prepared[p.ref], prepared[p.probe], a));
}
const col = (k: keyof PairRow) => pairs.map((p) => p[k] as number);
const noise = pairs.filter((p) => p.espsim_grid_shape_seed7 !== undefined);
const corr = (a: number[], b: number[]) => ({ pearson: r3(pearson(a, b)), spearman: r3(spearman(a, b)) });
if (!onlyRecall)
  results.accuracy = {
    pairs: pairs.length,
    shape_vs_espsim_grid: corr(ours.shape, col('espsim_grid_shape')),
    gaussian_vs_espsim_grid: corr(ours.gaussian, col('espsim_grid_shape')),
    shape_minus_espsim_mean: r3(meanOf(ours.shape.map((v, i) => v - pairs[i].espsim_grid_shape))),
    gaussian_vs_rdkit_gaussian: corr(ours.gaussian, col('rdkit_shape_align')),
    gaussian_minus_rdkit_gaussian_mean: r3(
      meanOf(ours.gaussian.map((v, i) => v - pairs[i].rdkit_shape_align)),
    ),
    rdkit_gaussian_vs_espsim_grid: corr(col('rdkit_shape_align'), col('espsim_grid_shape')),
    esp_vs_espsim: corr(ours.esp, col('espsim_esp_carbo')),
    esp_at_best_gaussian_pose_vs_espsim: corr(ours.espGauss, col('espsim_esp_carbo')),
    grid_poses: GRID_POSES,
    esp_best_over_poses_vs_espsim: corr(ours.espBest, col('espsim_esp_carbo')),
    espsim_seed_noise: {
      pairs: noise.length,
      shape: corr(
        noise.map((p) => p.espsim_grid_shape),
        noise.map((p) => p.espsim_grid_shape_seed7!),
      ),
      esp: corr(
        noise.map((p) => p.espsim_esp_carbo),
        noise.map((p) => p.espsim_esp_carbo_seed7!),
      ),
    },
  };
console.log('accuracy', JSON.stringify(results.accuracy, null, 1));

// 2. Speed on the same pairs: RDKit in a child process, then ours again, then RDKit again.
const speedPairs = arg('--speed-pairs', 60);
const rdkit = () => {
  const r = spawnSync(
    PY,
    [
      join(import.meta.dirname, 'rdkit_speed.py'),
      join(DIR, 'molecules.json'),
      join(DIR, 'pairs.json'),
      String(speedPairs),
    ],
    { encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout) as { rdkit_shape_align_ms: number; espsim_o3a_grid_ms: number | null };
};
// Ours: the alignment and the grid scores of its best poses (what the exact stage does per candidate).
const oursSpeed = (withGrid = true) => {
  let ms = 0;
  let n = 0;
  for (const p of pairs.slice(0, speedPairs)) {
    const t0 = performance.now();
    const a = alignShapes(prepared[p.ref], prepared[p.probe]);
    if (withGrid) bestGridPose(prepared[p.ref], prepared[p.probe], a);
    ms += performance.now() - t0;
    n += prepared[p.ref].confs.length * prepared[p.probe].confs.length;
  }
  return ms / n;
};
// Rounds of RDKit / ours / ours without the grid rescoring, then RDKit once more: each of ours sits
// between two RDKit timings, so load swings on a shared machine hit both sides (--speed-rounds).
const rounds = onlyRecall ? 0 : Math.max(1, arg('--speed-rounds', 3));
const rd = onlyRecall ? [] : [rdkit()];
const ourMsList: number[] = [];
const alignOnlyList: number[] = [];
for (let r = 0; r < rounds; r++) {
  ourMsList.push(oursSpeed());
  alignOnlyList.push(oursSpeed(false));
  rd.push(rdkit());
}
const rdList = rd.map((v) => v.rdkit_shape_align_ms);
const ourMs = meanOf(ourMsList);
const rdMs = meanOf(rdList);
results.speed = {
  rounds,
  ours_ms_per_conf_pair: ourMsList.map(r3),
  ours_alignment_only_ms_per_conf_pair: alignOnlyList.map(r3),
  ours_ms_per_conf_pair_all_pairs: r3(alignMs / confPairs),
  rdkit_shape_align_ms_per_conf_pair: rdList.map(r3),
  espsim_o3a_grid_ms_per_conf_pair: rd.map((v) => (v.espsim_o3a_grid_ms ? r3(v.espsim_o3a_grid_ms) : null)),
  ratio_per_round: ourMsList.map((m, r) => ((rdList[r] + rdList[r + 1]) / 2 / m).toFixed(2)),
  ratio_vs_rdkit_shape_align: (rdMs / ourMs).toFixed(2),
  ratio_alignment_only: (rdMs / meanOf(alignOnlyList)).toFixed(2),
};
console.log('speed', JSON.stringify(results.speed, null, 1));

if (argv.includes('--no-recall')) {
  results.load_after = loadavg();
  results.reference_meta = pairsJson.meta;
  writeFileSync(join(DIR, 'results.json'), JSON.stringify(results, null, 1) + '\n');
  process.exit(0);
}

// 3. Recall@30 of the first stage against exhaustive exact scoring.
const describedRows = sets.map(describeConformers);
const table = descriptorTable(describedRows);
const gridRows = prepared.map(gridDescriptors);
const gridTable = descriptorTable(gridRows, GRID_LENGTH);
const chargeRows = prepared.map(chargeGridDescriptors);
const chargeTable = descriptorTable(chargeRows, GRID_LENGTH);
// Queries: the actives first (one per target), then seeded-random other molecules.
const targets = [...new Set(records.map((r) => r.target))];
const nq = arg('--queries', 20);
const queries = targets
  .map((t) => records.findIndex((r) => r.target === t && r.active))
  .filter((i) => i >= 0);
for (let i = 0, x = 7; queries.length < nq && i < 10 * nq; i++) {
  x = (x * 48271) % 2147483647;
  if (!queries.includes(x % sets.length)) queries.push(x % sets.length);
}
queries.length = Math.min(queries.length, nq);
const sizes = [30, 50, 100, 200, 300].filter((s) => s < sets.length);
const rec: Record<string, Record<number, number[]>> = {};
let exactMs = 0;
let exactN = 0;
for (const q of queries) {
  const exact = { shape: [] as number[], esp: [] as number[] };
  const t0 = performance.now();
  for (let i = 0; i < sets.length; i++) {
    if (i === q) {
      exact.shape.push(-Infinity);
      exact.esp.push(-Infinity);
      continue;
    }
    const a = alignShapes(prepared[q], prepared[i]);
    const g = bestGridPose(prepared[q], prepared[i], a);
    exact.shape.push(g.shape);
    exact.esp.push(espAtAlignment(prepared[q], prepared[i], g.pose));
  }
  exactMs += performance.now() - t0;
  exactN += sets.length - 1;
  const lists = {
    usrcat: Array.from(scanShortlist(describedRows[q], table, Math.max(...sizes) + 1).rows),
    grid: Array.from(gridScan(gridRows[q], gridTable, Math.max(...sizes) + 1).rows),
    charge: Array.from(gridScan(chargeRows[q], chargeTable, Math.max(...sizes) + 1, 'cosine').rows),
  };
  for (const metric of ['shape', 'esp'] as const) {
    const truth = exact[metric]
      .map((v, i) => [v, i] as const)
      .sort((x, y) => y[0] - x[0])
      .slice(0, 30)
      .map(([, i]) => i);
    for (const [stage, list] of Object.entries(lists)) {
      const shortlist = list.filter((r) => r !== q);
      for (const s of sizes)
        ((rec[`${stage}:${metric}`] ??= {})[s] ??= []).push(recall(truth, shortlist.slice(0, s)));
    }
  }
}
results.recall_at_30 = {
  molecules: sets.length,
  queries: queries.length,
  ...Object.fromEntries(
    Object.entries(rec).map(([m, bySize]) => [
      m,
      Object.fromEntries(sizes.map((s) => [s, r3(meanOf(bySize[s]))])),
    ]),
  ),
};
console.log('recall@30 by shortlist size', JSON.stringify(results.recall_at_30, null, 1));

// First-stage scan speed: the real descriptor table tiled to 200,000 rows, JS against wasm SIMD.
const tiled = descriptorTable(Array.from({ length: 200_000 }, (_, i) => describedRows[i % sets.length]));
const scanner = createUsrScanner(tiled);
const timeScan = (f: () => unknown) => {
  const t0 = performance.now();
  f();
  return performance.now() - t0;
};
const tiledGrid = descriptorTable(
  Array.from({ length: 200_000 }, (_, i) => gridRows[i % sets.length]),
  GRID_LENGTH,
);
const scanMs = { js: [] as number[], wasm: [] as number[], grid: [] as number[] };
for (const q of queries.slice(0, 5)) {
  const d = describedRows[q];
  scanMs.js.push(timeScan(() => scanShortlist(d, tiled, 300)));
  scanMs.wasm.push(timeScan(() => scanner.scan(d, 300)));
  scanMs.grid.push(timeScan(() => gridScan(gridRows[q], tiledGrid, 300)));
}
results.first_stage_scan = {
  rows: 200_000,
  conformers_per_row: 3,
  js_rows_per_s: Math.round(200_000 / (meanOf(scanMs.js) / 1000)),
  wasm_rows_per_s: Math.round(200_000 / (meanOf(scanMs.wasm) / 1000)),
  grid_js_rows_per_s: Math.round(200_000 / (meanOf(scanMs.grid) / 1000)),
};
results.exact_stage = { ms_per_candidate_align_and_esp: r3(exactMs / exactN), candidates: exactN };
console.log('scan and exact stage', JSON.stringify([results.first_stage_scan, results.exact_stage]));
results.load_after = loadavg();
results.reference_meta = pairsJson.meta;
writeFileSync(join(DIR, 'results.json'), JSON.stringify(results, null, 1) + '\n');
