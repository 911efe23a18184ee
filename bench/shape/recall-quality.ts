/**
 * recall@30 of the two-stage 3D search per `search_quality`, against exhaustive exact scoring, on
 * a 3D-ready catalog (e.g. the bundled chembl_drugs after its first start):
 *
 *   node bench/shape/recall-quality.ts --catalog data/catalogs/chembl_drugs [--queries 8] [--seed 7]
 *
 * Queries: seeded random rows of the catalog (their stored conformers). Truth: every row aligned
 * and scored by scoreShortlist (the service's exact stage, `alignShapes` defaults), top 30 by
 * shape and by ESP. First stages over every row, shortlist sizes of the service's qualities
 * (SHORTLIST_ROWS: `fast` 200 shape / 400 ESP, `accurate` 1,000 / 2,000 rows) and fractions of the
 * catalog: USRCAT-style descriptors (the fallback beyond the grid limit), the Gaussian shape grid
 * (`espsim_shape`), the charge grid, shape + charge grid fused (sum of the two best-pair scores),
 * the pose-aware charge grid, and the ESP pre-stage over its pool (`espsim_electrostatic`: the
 * service's ESP first stage, engine/shape/esp-prescreen.ts). Output: one JSON object on stdout.
 */
import { openCatalog } from '../../engine/catalog/index.ts';
import { loadShard3d, molecule3d } from '../../engine/catalog/three-d-reader.ts';
import {
  chargeGridDescriptors,
  describeConformers,
  gridDescriptors,
  gridScan,
  poseChargeScan,
  prepareShape,
  scanShortlist,
  scoreShortlist,
  type ConformerSet,
} from '../../engine/shape/index.ts';
import { descriptorTable, type Shortlist } from '../../engine/shape/scan.ts';
import { espPrescreenScan } from '../../engine/shape/esp-prescreen.ts';
import { asShard } from '../../testkit/conformer-shard.ts';
import { GRID_LENGTH } from '../../engine/shape/gaussian-grid.ts';

const arg = (name: string, dflt?: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : dflt;
};
const catalog = await openCatalog(arg('catalog', 'data/catalogs/chembl_drugs')!);
const nQueries = Number(arg('queries', '8'));
let seed = Number(arg('seed', '7'));
const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;

const mols: ConformerSet[] = [];
for (let s = 0; s < catalog.manifest.shards.length; s++) {
  const s3 = await loadShard3d(catalog, s);
  for (let r = 0; r < s3.rows; r++) {
    const m = molecule3d(s3, r);
    if (m) mols.push(m);
  }
}
const shard = asShard(mols);
const n = mols.length;
const t0 = performance.now();
const prepared = mols.map((m) => prepareShape(m));
const usr = descriptorTable(mols.map(describeConformers));
const grid = descriptorTable(prepared.map(gridDescriptors), GRID_LENGTH);
const charge = descriptorTable(prepared.map(chargeGridDescriptors), GRID_LENGTH);
const tDesc = performance.now() - t0;

/** Scores of every row in row order, from a full-length shortlist. */
const byRow = (sl: Shortlist) => {
  const out = new Float32Array(n);
  sl.rows.forEach((r, i) => (out[r] = sl.scores[i]));
  return out;
};
const order = (scores: ArrayLike<number>) =>
  Array.from({ length: n }, (_, i) => i).sort((a, b) => scores[b] - scores[a] || a - b);

const SIZES: Record<string, number> = {
  '100': 100,
  '150': 150,
  '200': 200,
  '300': 300,
  '350': 350,
  '400': 400,
  accurate: 1000,
  '2000': 2000,
  '10%': Math.round(n * 0.1),
  '20%': Math.round(n * 0.2),
  '30%': Math.round(n * 0.3),
  '50%': Math.round(n * 0.5),
};
const K = 30;
const sums: Record<string, number> = {};
const prescreenMs: Record<string, number> = {};
let exactMs = 0;
const queries: number[] = [];
while (queries.length < nQueries) {
  const q = Math.floor(rand() * n);
  if (!queries.includes(q)) queries.push(q);
}
for (const q of queries) {
  const query = mols[q];
  const t1 = performance.now();
  const exact = scoreShortlist(prepared[q], mols, { metric: 'shape', k: n });
  exactMs += performance.now() - t1;
  const shape = new Float64Array(n);
  const esp = new Float64Array(n);
  for (const h of exact) [shape[h.index], esp[h.index]] = [h.shape, h.esp];
  const truth = { shape: new Set(order(shape).slice(0, K)), esp: new Set(order(esp).slice(0, K)) };
  const g = byRow(gridScan(gridDescriptors(prepared[q]), grid, n));
  const c = byRow(gridScan(chargeGridDescriptors(prepared[q]), charge, n, 'cosine'));
  const pose = byRow(
    poseChargeScan(
      gridDescriptors(prepared[q]),
      chargeGridDescriptors(prepared[q]),
      { shape: grid, charge },
      n,
    ),
  );
  const stages: Record<string, ArrayLike<number>> = {
    usrcat: byRow(scanShortlist(describeConformers(query), usr, n)),
    grid: g,
    charge_grid: c,
    grid_plus_charge: g.map((v, i) => v + c[i]),
    pose_charge: pose,
  };
  // The ESP pre-stage (the service's ESP first stage): its shortlist depends on the size (its pool
  // is 1.5 × the size), so it is run per size; its cost per size goes to prescreen_ms.
  for (const [size, s] of Object.entries(SIZES)) {
    const t2 = performance.now();
    const top = new Set(espPrescreenScan(query, { shape: grid, charge }, shard, Math.min(s, n)).rows);
    prescreenMs[size] = (prescreenMs[size] ?? 0) + (performance.now() - t2) / nQueries;
    for (const metric of ['shape', 'esp'] as const) {
      const hit = [...truth[metric]].filter((r) => top.has(r)).length / K;
      const key = `${metric}|esp_prescreen|${size}`;
      sums[key] = (sums[key] ?? 0) + hit;
    }
  }
  for (const [stage, scores] of Object.entries(stages)) {
    const ranked = order(scores);
    for (const [size, s] of Object.entries(SIZES)) {
      const top = new Set(ranked.slice(0, s));
      for (const metric of ['shape', 'esp'] as const) {
        const hit = [...truth[metric]].filter((r) => top.has(r)).length / K;
        const key = `${metric}|${stage}|${size}`;
        sums[key] = (sums[key] ?? 0) + hit;
      }
    }
  }
  process.stderr.write(
    `query ${queries.indexOf(q) + 1}/${nQueries} (${(performance.now() - t1).toFixed(0)} ms)\n`,
  );
}
const table: Record<string, Record<string, number>> = {};
for (const [key, v] of Object.entries(sums)) {
  const [metric, stage, size] = key.split('|');
  (table[`${stage} → exact ${metric}`] ??= {})[size] = Math.round((v / nQueries) * 1000) / 1000;
}
console.log(
  JSON.stringify(
    {
      catalog: catalog.manifest.id,
      rows: n,
      confs_per_row: usr.offsets[n] / n,
      queries: nQueries,
      shortlist_rows: SIZES,
      recall_at_30: table,
      first_stage_descriptors_ms: Math.round(tDesc),
      esp_prescreen_ms_per_query: Object.fromEntries(
        Object.entries(prescreenMs).map(([k, v]) => [k, Math.round(v)]),
      ),
      exact_ms_per_candidate: exactMs / nQueries / n,
    },
    null,
    1,
  ),
);
