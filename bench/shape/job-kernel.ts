/**
 * The job benchmark's pairs at kernel level: our exact stage (`scoreShortlist`: alignment, shape
 * and ESP at the best pose, one thread, in process) against RDKit's `rdShapeAlign.AlignMol`
 * (bench/shape/align_peer.py, one thread) on the same query and the same rows, in the same run.
 * Separates the alignment kernel from the rest of the job (workflow, merge, result file).
 *
 *   node bench/shape/job-kernel.ts [--rows 150] [--repeat 10]
 *
 * Needs a run of bench/shape/job-bench.ts before (its catalog and the job's stored query).
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { openCatalog } from '../../engine/catalog/index.ts';
import { loadShard3d, molecule3d } from '../../engine/catalog/three-d-reader.ts';
import { moleculeFromBase64, type Molecule3d } from '../../engine/catalog/three-d-schema.ts';
import { scoreShortlist } from '../../engine/shape/index.ts';
import type { EmbeddedWire } from '../../workflows/contracts.ts';

const repo = resolve(import.meta.dirname, '../..');
const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const nRows = arg('--rows', 150);
const repeat = arg('--repeat', 10);
const out = join(repo, 'bench/out/shape');
const jobs = join(out, 'job-data/objects/jobs');
const job = readdirSync(jobs).find((j) => readdirSync(join(jobs, j)).includes('query3d.json'))!;
const wire = (
  JSON.parse(readFileSync(join(jobs, job, 'query3d.json'), 'utf8')) as {
    molecule: Extract<EmbeddedWire, { ok: true }>;
  }
).molecule;
const query = moleculeFromBase64(wire);
const catalog = await openCatalog(join(out, 'job-catalogs/shape-job-100000'));
const total = catalog.manifest.shards.reduce((n, s) => n + s.rows, 0);
const rows: Molecule3d[] = [];
for (let j = 0; j < nRows; j++) {
  let g = Math.floor(((j + 0.5) * total) / nRows);
  let s = 0;
  while (g >= catalog.manifest.shards[s].rows) g -= catalog.manifest.shards[s++].rows;
  rows.push(molecule3d(await loadShard3d(catalog, s), g)!);
}
const pairs = rows.reduce((n, r) => n + r.confCount * query.confCount, 0);
scoreShortlist(query, rows, { metric: 'shape', k: rows.length }); // warm-up (JIT)
const c0 = process.cpuUsage();
const t0 = performance.now();
let hits: ReturnType<typeof scoreShortlist> = [];
for (let r = 0; r < repeat; r++) hits = scoreShortlist(query, rows, { metric: 'shape', k: rows.length });
const wall = performance.now() - t0;
const cu = process.cpuUsage(c0);
const ours = {
  wall_ms_per_pair: wall / (pairs * repeat),
  cpu_ms_per_pair: (cu.user + cu.system) / 1000 / (pairs * repeat),
};
const plain = (m: Molecule3d) => ({
  ...m,
  elements: Array.from(m.elements),
  coords: Array.from(m.coords),
  charges: [],
});
const samplePath = join(out, 'job-kernel-sample.json');
await writeFile(samplePath, JSON.stringify({ query: plain(query), rows: rows.map(plain) }));
const peer = JSON.parse(
  execFileSync(
    join(repo, '.tools/chem3d/bin/python'),
    [join(import.meta.dirname, 'align_peer.py'), samplePath],
    {
      encoding: 'utf8',
    },
  ),
) as { ms_per_conf_pair: number; cpu_ms_per_conf_pair: number; best_shape: number[] };
const byIndex = new Float64Array(rows.length);
for (const h of hits) byIndex[h.index] = h.shape;
const figures = {
  rows: rows.length,
  conf_pairs: pairs,
  repeat,
  ours_score_shortlist: {
    wall_ms_per_pair: +ours.wall_ms_per_pair.toFixed(4),
    cpu_ms_per_pair: +ours.cpu_ms_per_pair.toFixed(4),
  },
  rdkit_align_mol: { wall_ms_per_pair: peer.ms_per_conf_pair, cpu_ms_per_pair: peer.cpu_ms_per_conf_pair },
  ratio_cpu: +(peer.cpu_ms_per_conf_pair / ours.cpu_ms_per_pair).toFixed(2),
  mean_ours_minus_rdkit: +(byIndex.reduce((t, v, i) => t + v - peer.best_shape[i], 0) / rows.length).toFixed(
    4,
  ),
  load: loadavg(),
};
console.log(JSON.stringify(figures, null, 1));
