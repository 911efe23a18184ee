/**
 * Fingerprint search benchmark: `node bench/fingerprint/run.ts [--n 1000000] [--queries 50]
 * [--k 100] [--threads N] [--rdkit-queries 5] [--no-peers] [--source catalog_merged.tsv.gz]`.
 *
 * Data: Morgan r2 2048-bit fingerprints of the 802,238 rows of catalog_merged.tsv.gz, extended to
 * --n rows with perturbed copies (see make_fps.py), computed once with Python RDKit into
 * bench/out/fps-<n>.u8, which both our side and the peers read; our side writes them once as a
 * catalog (bench/out/catalog-<n>/, engine/catalog format). Queries: --queries seeded random rows.
 * Prints the single-core bandwidth ceiling, full-scan throughput, k-NN time per query and the rows
 * whose fingerprints were read for our scan with BitBound only and with the block bound (one
 * thread in-process, and the pool; same run) beside FPSim2 and RDKit BulkTanimotoSimilarity, and writes
 * everything to bench/out/fingerprint-<n>.json.
 */
import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { openCatalog, readShard } from '../../engine/catalog/reader.ts';
import {
  createSearchPool,
  loadShardForScan,
  mergeHits,
  mergeTopK,
  prepareTanimoto,
  scanShardTopK,
  type Hit,
} from '../../engine/search/index.ts';
import { maxBound } from '../../engine/search/bitbound.ts';
import { popcountOf } from '../../engine/search/kernel-js.ts';
import { writeFormatCatalog } from '../../testkit/format-catalog.ts';
import { cpuSeconds, kernelFigures } from './kernel-bench.ts';
import { BLOCK_BYTES } from '../../engine/search/wasm/kernel-blocks.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const OUT = join(ROOT, 'bench/out');
const PY = join(ROOT, '.tools/pyoff/bin/python');
const REAL_ROWS = 802_238;
const argv = process.argv.slice(2);
const arg = (name: string, def: number): number =>
  argv.includes(name) ? Number(argv[argv.indexOf(name) + 1]) : def;
const n = arg('--n', 1_000_000);
const nq = arg('--queries', 50);
const k = arg('--k', 100);
const threads = arg('--threads', availableParallelism());
const rdkitQ = arg('--rdkit-queries', 5);
const source = argv.includes('--source')
  ? argv[argv.indexOf('--source') + 1]
  : '/work/shared/data/catalog/catalog_merged.tsv.gz';
const log = (...a: unknown[]): void => console.log(...a);
const mean = (xs: number[]): number => xs.reduce((s, x) => s + x, 0) / xs.length;
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1];

mkdirSync(OUT, { recursive: true });
const fpsPath = join(OUT, `fps-${n}.u8`);
if (!existsSync(fpsPath)) {
  log(`computing fingerprints with Python RDKit -> ${fpsPath} (cached afterwards)`);
  const r = spawnSync(PY, [join(ROOT, 'bench/fingerprint/make_fps.py'), source, String(n), '2'], {
    stdio: 'inherit',
  });
  if (r.status !== 0) throw new Error('make_fps.py failed');
}
const fps = new Uint8Array(readFileSync(fpsPath));

// Seeded query rows among the real molecules, skipping empty fingerprints.
let seed = 12345;
const rand = (): number => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
const qrows: number[] = [];
while (qrows.length < nq) {
  const r = Math.floor(rand() * Math.min(n, REAL_ROWS));
  if (popcountOf(fps, r) > 0 && !qrows.includes(r)) qrows.push(r);
}
const qpath = join(OUT, `queries-${n}-${nq}.json`);
writeFileSync(qpath, JSON.stringify(qrows));
const queries = qrows.map((r) => fps.slice(r * 256, r * 256 + 256));

const catDir = join(OUT, `catalog-${n}`);
if (!existsSync(join(catDir, 'manifest.json'))) {
  log(`writing catalog shards -> ${catDir}`);
  writeFormatCatalog(catDir, `bench-${n}`, fps, 131_072);
}
const catalog = await openCatalog(catDir);
const id = catalog.manifest.id;

log(`\n${n.toLocaleString()} fingerprints, ${nq} queries, k=${k}, ${threads} pool threads`);
const shards = catalog.manifest.shards.map((_, i) => loadShardForScan(catalog.shardPath(i), i, readShard));
const sorted = new Uint8Array(n * 256);
let off = 0;
for (const s of shards) {
  sorted.set(s.fingerprints, off);
  off += s.fingerprints.length;
}
const kf = kernelFigures(sorted);
log(`single-core read bandwidth (wasm, 16-byte loads): ${kf.bandwidthGBs.toFixed(2)} GB/s`);
log(
  `full Tanimoto scan, 1 thread: ${(kf.scanFpsPerSec / 1e6).toFixed(1)} M fps/s = ${kf.scanGBs.toFixed(2)} GB/s = ${(kf.scanGBs / kf.bandwidthGBs).toFixed(2)} of the ceiling (median paired ratio ${kf.medianRatio.toFixed(2)})`,
);

// k-NN on one thread, in-process: shards by decreasing bound, each seeded with the k-th score so far.
// `blockBound` false is the plain BitBound path (every row BitBound leaves is read), true the block-bound path.
function knnSerial(q: Uint8Array, blockBound: boolean): { hits: Hit[]; scanned: number; touched: number } {
  const pq = prepareTanimoto(q);
  const order = shards
    .map((s, i) => ({ i, b: maxBound(pq.bounds, s.popcounts[0], s.popcounts[s.rows - 1]) }))
    .sort((x, y) => y.b - x.b);
  let hits: Hit[] = [];
  let scanned = 0;
  let touched = 0;
  for (const { i, b } of order) {
    const floor = hits.length >= k ? hits[k - 1].similarity : -Infinity;
    if (b < floor) break;
    const r = scanShardTopK(shards[i], pq, { k, floor, blockBound });
    scanned += r.scanned;
    touched += r.touched;
    hits = mergeHits(hits, mergeTopK([{ catalog: id, shard: i, rows: r.rows, scores: r.scores }], k), k);
  }
  return { hits, scanned, touched };
}

interface PathFigures {
  ms: number[];
  cpuMs: number[];
  hits: Hit[][];
  scanned: number;
  touched: number;
}
const paths: Record<'plain' | 'blocks', PathFigures> = {
  plain: { ms: [], cpuMs: [], hits: [], scanned: 0, touched: 0 },
  blocks: { ms: [], cpuMs: [], hits: [], scanned: 0, touched: 0 },
};
knnSerial(queries[0], false);
knnSerial(queries[0], true);
// Both paths per query, alternating which goes first, so they see the same machine load.
for (const [qi, q] of queries.entries()) {
  for (const name of qi % 2 ? (['blocks', 'plain'] as const) : (['plain', 'blocks'] as const)) {
    const f = paths[name];
    const t = performance.now();
    const c = process.cpuUsage();
    const r = knnSerial(q, name === 'blocks');
    f.cpuMs.push(cpuSeconds(c) * 1000);
    f.ms.push(performance.now() - t);
    f.hits.push(r.hits);
    f.scanned += r.scanned;
    f.touched += r.touched;
  }
}
const serialHits = paths.plain.hits;
const sameSerial = paths.blocks.hits.filter(
  (h, i) => JSON.stringify(h) === JSON.stringify(serialHits[i]),
).length;
const bytesPerRow = 258;
for (const name of ['plain', 'blocks'] as const) {
  const f = paths[name];
  const rate = (f.scanned * bytesPerRow) / (f.cpuMs.reduce((a, b) => a + b, 0) / 1000) / 1e9;
  log(
    `k-NN 1 thread, ${name === 'plain' ? 'BitBound only' : `block bound (${BLOCK_BYTES} B/row)`}: mean ${mean(f.ms).toFixed(1)} ms wall (${mean(f.cpuMs).toFixed(1)} ms CPU), median ${median(f.ms).toFixed(1)} ms per query; BitBound left ${((100 * f.scanned) / (n * nq)).toFixed(0)}% of rows, fingerprints read for ${((100 * f.touched) / (n * nq)).toFixed(1)}%${name === 'plain' ? ` (${rate.toFixed(2)} GB/s of CPU time, ${(rate / kf.bandwidthGBs).toFixed(2)} of ceiling)` : `; results identical to BitBound only: ${sameSerial}/${nq}`}`,
  );
}
log(
  `  block bound vs BitBound only, 1 thread: ${(mean(paths.plain.ms) / mean(paths.blocks.ms)).toFixed(2)}x wall, ${(mean(paths.plain.cpuMs) / mean(paths.blocks.cpuMs)).toFixed(2)}x CPU`,
);

const poolFig: Record<
  'plain' | 'blocks',
  { ms: number[]; identical: number; scanned: number; touched: number }
> = {} as never;
for (const name of ['plain', 'blocks'] as const) {
  const pool = createSearchPool({ threads, blockBound: name === 'blocks' });
  await pool.loadCatalog(catalog);
  for (const q of queries.slice(0, 10)) await pool.knn({ catalogs: [id], query: q, k });
  const ms: number[] = [];
  let identical = 0;
  const before = pool.stats();
  for (const [i, q] of queries.entries()) {
    const t = performance.now();
    const hits = await pool.knn({ catalogs: [id], query: q, k });
    ms.push(performance.now() - t);
    if (JSON.stringify(hits) === JSON.stringify(serialHits[i])) identical++;
  }
  const after = pool.stats();
  await pool.close();
  poolFig[name] = {
    ms,
    identical,
    scanned: after.rowsScanned - before.rowsScanned,
    touched: after.rowsTouched - before.rowsTouched,
  };
  log(
    `k-NN pool (${threads} threads), ${name === 'plain' ? 'BitBound only' : 'block bound'}: mean ${mean(ms).toFixed(1)} ms, median ${median(ms).toFixed(1)} ms per query; fingerprints read for ${((100 * poolFig[name].touched) / (n * nq)).toFixed(1)}% of rows; results identical to 1 thread: ${identical}/${nq}`,
  );
}
const poolMs = poolFig.blocks.ms;
const serialMs = paths.blocks.ms;
const serialCpuMs = paths.blocks.cpuMs;

const summary = (f: PathFigures) => ({
  meanMs: mean(f.ms),
  cpuMeanMs: mean(f.cpuMs),
  medianMs: median(f.ms),
  scannedFraction: f.scanned / (n * nq),
  touchedFraction: f.touched / (n * nq),
});
const result: Record<string, unknown> = {
  n,
  queries: nq,
  k,
  threads,
  kernel: kf,
  blockBytes: BLOCK_BYTES,
  serial: { plain: summary(paths.plain), blocks: summary(paths.blocks), identical: sameSerial },
  pool: Object.fromEntries(
    (['plain', 'blocks'] as const).map((p) => [
      p,
      {
        meanMs: mean(poolFig[p].ms),
        medianMs: median(poolFig[p].ms),
        touchedFraction: poolFig[p].touched / (n * nq),
        identical: poolFig[p].identical,
      },
    ]),
  ),
};
if (!argv.includes('--no-peers')) {
  const r = spawnSync(
    PY,
    [join(ROOT, 'bench/fingerprint/peers.py'), fpsPath, qpath, String(k), String(threads), String(rdkitQ)],
    { encoding: 'utf8', maxBuffer: 1 << 28 },
  );
  if (r.status !== 0) throw new Error(`peers.py failed: ${r.stderr}`);
  const peers = JSON.parse(r.stdout) as Record<string, number & number[][]>;
  const f1 = peers.fpsim2_1t_ms;
  const fN = peers[`fpsim2_${threads}t_ms`];
  const sameScores = serialHits.filter(
    (h, i) => JSON.stringify(h.map((x) => x.similarity)) === JSON.stringify(peers.fpsim2_top_scores[i]),
  ).length;
  const f1cpu = peers.fpsim2_1t_cpu_ms;
  log(
    `FPSim2 top_k: 1 thread ${f1.toFixed(1)} ms wall (${f1cpu.toFixed(1)} ms CPU), ${threads} threads ${fN.toFixed(1)} ms per query; same top-${k} similarities as ours: ${sameScores}/${nq}`,
  );
  log(
    `  ours (block bound) vs FPSim2 per k-NN query: 1 thread ${(f1 / mean(serialMs)).toFixed(2)}x wall, ${(f1cpu / mean(serialCpuMs)).toFixed(2)}x CPU; pool vs ${threads} threads ${(fN / mean(poolMs)).toFixed(2)}x wall`,
  );
  log(
    `  ours (BitBound only) vs FPSim2: 1 thread ${(f1 / mean(paths.plain.ms)).toFixed(2)}x wall, ${(f1cpu / mean(paths.plain.cpuMs)).toFixed(2)}x CPU; pool ${(fN / mean(poolFig.plain.ms)).toFixed(2)}x wall`,
  );
  if (peers.rdkit_ms)
    log(
      `RDKit BulkTanimotoSimilarity + top-k: ${peers.rdkit_ms.toFixed(1)} ms wall (${peers.rdkit_cpu_ms.toFixed(1)} ms CPU) per query (${rdkitQ} queries); ours 1 thread is ${(peers.rdkit_cpu_ms / mean(serialCpuMs)).toFixed(1)}x faster (CPU)`,
    );
  result.peers = { ...peers, fpsim2_top_scores: undefined, rdkit_top_scores: undefined, sameScores };
}
writeFileSync(join(OUT, `fingerprint-${n}.json`), JSON.stringify(result, null, 2));
