/**
 * DUD-E virtual screening on the 20 targets of the shared data (bench/shape/README.md, "Virtual
 * screening"): per target, several seeded actives as queries (10 conformers, the service's query
 * recipe) against one library of the other sampled actives and a seeded sample of decoys (3
 * conformers, the first-pass catalog recipe), embedded by bench/shape/dude_prep.py. Every library
 * molecule is ranked by `morgan` (Tanimoto, radius 2, 2048 bits), `espsim_shape` and
 * `espsim_electrostatic` (the service's exact stage: scoreShortlist, `alignShapes` defaults, on the
 * shape pool's threads). Per query: EF at 1 % and 5 %, ROC enrichment at 1 % false positives
 * (ROCE1%, independent of the active:decoy ratio) and AUROC; per target the mean over its queries,
 * and the same figures for MAX group fusion (a molecule's best score over the target's queries);
 * then the mean and standard deviation over targets.
 *
 *   .tools/chem3d/bin/python bench/shape/dude_prep.py /work/shared/data/vs_benchmarks/dude_subset20 bench/out/shape/dude5
 *   node bench/shape/dude.ts bench/out/shape/dude5/dude.json.gz > bench/out/shape/dude5/results.json
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { createShapePool } from '../../engine/shape/pool.ts';
import { screenTarget, VS_METHODS as methods, type VsRecord } from './vs-screen.ts';

interface Rec extends VsRecord {
  active: boolean;
}
const path = process.argv[2] ?? 'bench/out/shape/dude5/dude.json.gz';
const data = JSON.parse(gunzipSync(readFileSync(path)).toString()) as {
  meta: Record<string, number>;
  targets: Record<string, { queries: Rec[]; library: Rec[]; actives_total: number; decoys_total: number }>;
};
const stats = ['ef1', 'ef5', 'roce1', 'auroc'] as const;
const rows: Record<string, Record<string, number>> = {};
const pool = createShapePool({ threads: Number(process.env.BENCH_THREADS ?? 2) });
const t0 = performance.now();
for (const [target, t] of Object.entries(data.targets)) {
  const active = t.library.map((r) => r.active);
  const row: Record<string, number> = {
    library: t.library.length,
    actives: active.filter(Boolean).length,
    queries: t.queries.length,
  };
  const r = await screenTarget(pool, t.queries, t.library, active);
  for (const m of methods) for (const st of stats) row[`${m}_${st}`] = r.perQuery[m][st];
  for (const m of methods) {
    row[`${m}_max_ef1`] = r.max[m].ef1;
    row[`${m}_max_roce1`] = r.max[m].roce1;
    row[`${m}_max_auroc`] = r.max[m].auroc;
  }
  rows[target] = row;
  process.stderr.write(
    `${target} (${((performance.now() - t0) / 1000).toFixed(0)} s) ${JSON.stringify(row)}\n`,
  );
}
await pool.close();
const mean: Record<string, number> = {};
for (const k of Object.keys(Object.values(rows)[0]))
  mean[k] = Object.values(rows).reduce((s, r) => s + r[k], 0) / Object.keys(rows).length;
/** Standard deviation over the targets (the spread a reader compares published ± figures with). */
const sd: Record<string, number> = {};
for (const k of Object.keys(mean))
  sd[k] = Math.sqrt(
    Object.values(rows).reduce((s, r) => s + (r[k] - mean[k]) ** 2, 0) / (Object.keys(rows).length - 1 || 1),
  );
const seconds = Math.round((performance.now() - t0) / 1000);
console.log(JSON.stringify({ meta: data.meta, seconds, mean, sd, targets: rows }, null, 1));
