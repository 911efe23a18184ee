/**
 * Analysis benchmark: the Morgan similarity matrix (1,000 × 100,000 by default) and Butina
 * clustering (3,000 molecules), ours against Python RDKit in the same run on the same
 * fingerprints. RDKit runs first (bench/analysis/peers.py computes the fingerprints and writes
 * them), then our side reads the same bytes; both sides are single-threaded. Checks that the
 * results are equal, prints timings and ratios. See bench/analysis/README.md.
 *
 *   source scripts/env.sh && node bench/analysis/run.ts [--targets 100000] [--queries 1000] [--butina 3000] [--threshold 0.4]
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { fromPacked } from '../../engine/analysis/fingerprints.ts';
import { tanimotoMatrixInto } from '../../engine/analysis/similarity/tanimoto-matrix.ts';
import { butina } from '../../engine/analysis/cluster/butina.ts';
import { sliceSet } from '../../engine/analysis/fingerprints.ts';

const { values } = parseArgs({
  options: {
    targets: { type: 'string', default: '100000' },
    queries: { type: 'string', default: '1000' },
    butina: { type: 'string', default: '3000' },
    threshold: { type: 'string', default: '0.4' },
    python: { type: 'string', default: '.tools/analysis/bin/python' },
  },
});
const out = 'bench/out/analysis';
mkdirSync(out, { recursive: true });

console.log(`RDKit side (${values.python} bench/analysis/peers.py) ...`);
const peer = JSON.parse(
  execFileSync(
    values.python!,
    ['bench/analysis/peers.py', out, values.targets!, values.queries!, values.butina!, values.threshold!],
    { encoding: 'utf8', maxBuffer: 1 << 20 },
  ).trim(),
) as {
  targets: number;
  queries: number;
  matrix_s: number;
  butina_n: number;
  butina_dists_s: number;
  butina_cluster_s: number;
  butina_clusters: number;
};

const targets = fromPacked(new Uint8Array(readFileSync(`${out}/targets.u8`)));
const queries = fromPacked(new Uint8Array(readFileSync(`${out}/queries.u8`)));
const cells = targets.n * queries.n;
const matrix = new Float32Array(cells);
// warm-up: compile the kernel and touch the output pages
tanimotoMatrixInto(queries, targets, matrix, 0, Math.min(20, queries.n));
const times: number[] = [];
for (let r = 0; r < 3; r++) {
  const t = performance.now();
  tanimotoMatrixInto(queries, targets, matrix);
  times.push((performance.now() - t) / 1000);
}
const ours = Math.min(...times);
const check = new Float64Array(readFileSync(`${out}/matrix-check.f64`).buffer.slice(0));
let mismatches = 0;
[0, queries.n - 1].forEach((q, k) => {
  for (let j = 0; j < targets.n; j++)
    if (matrix[q * targets.n + j] !== Math.fround(check[k * targets.n + j])) mismatches++;
});

const bset = sliceSet(fromPacked(new Uint8Array(readFileSync(`${out}/targets.u8`))), 0, peer.butina_n);
butina(bset, Number(values.threshold));
const bt: number[] = [];
let clusters: number[][] = [];
for (let r = 0; r < 3; r++) {
  const t = performance.now();
  clusters = butina(bset, Number(values.threshold));
  bt.push((performance.now() - t) / 1000);
}
const oursButina = Math.min(...bt);
const sameButina = JSON.stringify(clusters) === readFileSync(`${out}/butina.json`, 'utf8').replace(/\s/g, '');
const rdkitButina = peer.butina_dists_s + peer.butina_cluster_s;

const f = (x: number, d = 2): string => x.toFixed(d);
console.log(
  `\nSimilarity matrix ${queries.n} × ${targets.n} (${(cells / 1e6).toFixed(0)} M cells), one thread each`,
);
console.log(
  `  RDKit BulkTanimotoSimilarity, per query: ${f(peer.matrix_s)} s = ${f(cells / peer.matrix_s / 1e6, 1)} M pairs/s`,
);
console.log(
  `  ours, blocked WebAssembly kernel (best of 3: ${times.map((t) => f(t)).join(', ')} s): ${f(ours)} s = ${f(cells / ours / 1e6, 1)} M pairs/s`,
);
console.log(
  `  ratio: ours ${f(peer.matrix_s / ours, 1)}× faster; rows checked against RDKit: ${mismatches} mismatching cells of ${2 * targets.n}`,
);
console.log(`\nButina, ${peer.butina_n} molecules, distance threshold ${values.threshold}`);
console.log(
  `  RDKit: distances ${f(peer.butina_dists_s)} s + ClusterData ${f(peer.butina_cluster_s)} s = ${f(rdkitButina)} s, ${peer.butina_clusters} clusters`,
);
console.log(
  `  ours (best of 3: ${bt.map((t) => f(t, 3)).join(', ')} s): ${f(oursButina, 3)} s, ${clusters.length} clusters`,
);
console.log(
  `  ratio: ours ${f(rdkitButina / oursButina, 1)}× faster; clusters identical to RDKit's: ${sameButina}`,
);
