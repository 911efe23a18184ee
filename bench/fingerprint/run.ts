/**
 * Fingerprint search benchmark: `node bench/fingerprint/run.ts [--n 1000000] [--queries 50]
 * [--k 100] [--threads N] [--runs 3] [--reps 5] [--rdkit-queries 5] [--no-peers] [--source F]`.
 *
 * Data: Morgan r2 2048-bit fingerprints of the 802,238 rows of catalog_merged.tsv.gz, extended to
 * --n rows with perturbed copies (see make_fps.py), computed once with Python RDKit into
 * bench/out/fps-<n>.u8, which both our side and the peers read; our side writes them once as a
 * catalog (bench/out/catalog-<n>/, engine/catalog format). Queries: --queries seeded random rows.
 *
 * 1. Kernel figures (kernel-bench.ts): the native AVX2 read ceiling, the wasm read loop, the full
 *    scan and the screened scan over the same bytes, --reps alternating rounds.
 * 2. k-NN, --runs back-to-back runs: in each, every query runs our one-thread scan with plain
 *    BitBound, ours with the screen bound and FPSim2's top_k (1 thread), in rotating order, then
 *    our pool (both paths) and FPSim2 with --threads workers; medians per run, their ratios, the
 *    spread over runs and the load average. RDKit BulkTanimotoSimilarity on a few queries once.
 * Everything also goes to bench/out/fingerprint-<n>.json.
 */
import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { openCatalog, readShard } from '../../engine/catalog/reader.ts';
import { createSearchPool, loadShardForScan, type Hit } from '../../engine/search/index.ts';
import { popcountOf } from '../../engine/search/kernel-js.ts';
import { writeFormatCatalog } from '../../testkit/format-catalog.ts';
import { kernelFigures, type Series } from './kernel-bench.ts';
import { knnSerial, mean, median, spread } from './knn.ts';
import { loadNativeReader } from './native-ceiling.ts';
import { startPeers, type Peers } from './peers-client.ts';

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
const runs = arg('--runs', 3);
const reps = arg('--reps', 5);
const rdkitQ = arg('--rdkit-queries', 5);
const source = argv.includes('--source')
  ? argv[argv.indexOf('--source') + 1]
  : '/work/shared/data/catalog/catalog_merged.tsv.gz';
const log = (...a: unknown[]): void => console.log(...a);
const load = (): string =>
  loadavg()
    .map((x) => x.toFixed(1))
    .join(' / ');
const same = (a: Hit[], b: Hit[]): boolean => JSON.stringify(a) === JSON.stringify(b);
const fmt = (s: Series, d = 2): string => `${s.median.toFixed(d)} (${s.min.toFixed(d)}–${s.max.toFixed(d)})`;

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
const shards = catalog.manifest.shards.map((_, i) => loadShardForScan(catalog.shardPath(i), i, readShard));
log(
  `\n${n.toLocaleString()} fingerprints, ${nq} queries, k=${k}, ${threads} pool threads; load average ${load()}`,
);

// Reference answers (plain BitBound, one thread): every other path must return exactly these.
const reference = queries.map((q) => knnSerial(id, shards, q, k, false).hits);

// 1. Kernel figures over the popcount-sorted bytes, screened at five queries' own k-th scores.
const sorted = new Uint8Array(n * 256);
let off = 0;
for (const s of shards) {
  sorted.set(s.fingerprints, off);
  off += s.fingerprints.length;
}
const native = loadNativeReader(join(OUT, 'native'));
if (typeof native === 'string') log(`native ceiling skipped: ${native}`);
const kf = kernelFigures(
  sorted,
  queries.slice(0, 5).map((fp, i) => ({ fp, min: reference[i][k - 1]?.similarity ?? 0 })),
  native,
  reps,
);
const per = (s: Series | undefined): string => (s ? fmt(s) : 'n/a');
log(`kernel, one thread, CPU time, median (min–max) of ${reps} alternating rounds:`);
log(`  native AVX2 read loop (32-byte loads): ${kf.nativeGBs ? `${fmt(kf.nativeGBs)} GB/s` : 'skipped'}`);
log(`  wasm read loop (16-byte loads):        ${fmt(kf.wasmReadGBs)} GB/s`);
log(
  `  full scan (258 B/row): ${fmt(kf.scanGBs)} GB/s = ${fmt({ ...kf.scanFpsPerSec, rounds: [], median: kf.scanFpsPerSec.median / 1e6, min: kf.scanFpsPerSec.min / 1e6, max: kf.scanFpsPerSec.max / 1e6 }, 1)} M fps/s; of native ${per(kf.scanOverNative)}, of wasm read ${fmt(kf.scanOverWasm)}`,
);
log(
  `  screened scan (32 B/row screen, fingerprints of ${(100 * kf.screenedTouched).toFixed(2)}% of rows at each query's k-th score): ${(kf.screenedRowsPerSec.median / 1e6).toFixed(0)} M rows/s (${(kf.screenedRowsPerSec.min / 1e6).toFixed(0)}–${(kf.screenedRowsPerSec.max / 1e6).toFixed(0)}), raw read ${fmt(kf.screenedReadGBs)} GB/s; rows/s x 258 B = ${fmt(kf.screenedEffectiveGBs)} GB/s = ${per(kf.screenedOverNative)} of native`,
);

// 2. k-NN runs.
const peers: Peers | undefined = argv.includes('--no-peers')
  ? undefined
  : await startPeers(PY, join(ROOT, 'bench/fingerprint/peers.py'), fpsPath, qpath, k);
const pools = {
  screen: createSearchPool({ threads }),
  plain: createSearchPool({ threads, blockBound: false }),
};
for (const p of Object.values(pools)) {
  await p.loadCatalog(catalog);
  for (const q of queries.slice(0, 5)) await p.knn({ catalogs: [id], query: q, k });
}
type Path = 'plain' | 'screen' | 'fpsim2';
const runFigures: Record<string, unknown>[] = [];
for (let run = 1; run <= runs; run++) {
  const loadBefore = load();
  const ms: Record<Path, number[]> = { plain: [], screen: [], fpsim2: [] };
  const cpu: Record<Path, number[]> = { plain: [], screen: [], fpsim2: [] };
  const ratio: number[] = [];
  let touched = 0;
  let scanned = 0;
  let identical = 0;
  let sameAsFpsim2 = 0;
  for (const [qi, q] of queries.entries()) {
    const order: Path[] = (['plain', 'screen', 'fpsim2'] as Path[]).map((_, j, a) => a[(j + qi) % 3]);
    for (const path of order) {
      if (path === 'fpsim2') {
        if (!peers) continue;
        const t = await peers.fpsim2(qi, 1);
        ms.fpsim2.push(t.ms);
        cpu.fpsim2.push(t.cpuMs);
        if (JSON.stringify(t.scores) === JSON.stringify(reference[qi].map((h) => h.similarity)))
          sameAsFpsim2++;
        continue;
      }
      const r = knnSerial(id, shards, q, k, path === 'screen');
      ms[path].push(r.ms);
      cpu[path].push(r.cpuMs);
      if (path === 'screen') {
        touched += r.touched;
        scanned += r.scanned;
        if (same(r.hits, reference[qi])) identical++;
      }
    }
    if (peers) ratio.push(ms.fpsim2[qi] / ms.screen[qi]);
  }
  const poolMs: Record<Path, number[]> = { plain: [], screen: [], fpsim2: [] };
  let poolIdentical = 0;
  for (const [qi, q] of queries.entries()) {
    const order: Path[] = (['plain', 'screen', 'fpsim2'] as Path[]).map((_, j, a) => a[(j + qi) % 3]);
    for (const path of order) {
      if (path === 'fpsim2') {
        if (peers) poolMs.fpsim2.push((await peers.fpsim2(qi, threads)).ms);
        continue;
      }
      const t = performance.now();
      const hits = await pools[path].knn({ catalogs: [id], query: q, k });
      poolMs[path].push(performance.now() - t);
      if (same(hits, reference[qi])) poolIdentical++;
    }
  }
  const f = {
    run,
    load: { before: loadBefore, after: load() },
    serialMedianMs: {
      plain: median(ms.plain),
      screen: median(ms.screen),
      fpsim2: peers ? median(ms.fpsim2) : undefined,
    },
    serialCpuMedianMs: {
      plain: median(cpu.plain),
      screen: median(cpu.screen),
      fpsim2: peers ? median(cpu.fpsim2) : undefined,
    },
    poolMedianMs: {
      plain: median(poolMs.plain),
      screen: median(poolMs.screen),
      fpsim2: peers ? median(poolMs.fpsim2) : undefined,
    },
    screenOverPlain: median(ms.plain) / median(ms.screen),
    fpsim2OverScreen: peers ? median(ms.fpsim2) / median(ms.screen) : undefined,
    fpsim2OverScreenCpu: peers ? median(cpu.fpsim2) / median(cpu.screen) : undefined,
    fpsim2OverScreenPerQueryMedian: peers ? median(ratio) : undefined,
    fpsim2OverScreenPerQueryMin: peers ? Math.min(...ratio) : undefined,
    poolFpsim2OverScreen: peers ? median(poolMs.fpsim2) / median(poolMs.screen) : undefined,
    bitboundLeft: scanned / (n * nq),
    fingerprintsRead: touched / (n * nq),
    identicalToPlain: identical,
    poolIdenticalToSerial: poolIdentical,
    sameScoresAsFpsim2: peers ? sameAsFpsim2 : undefined,
  };
  runFigures.push(f);
  log(`\nrun ${run} (load average ${f.load.before} -> ${f.load.after}), medians per query:`);
  log(
    `  1 thread: BitBound only ${f.serialMedianMs.plain.toFixed(1)} ms, screen ${f.serialMedianMs.screen.toFixed(1)} ms (CPU ${f.serialCpuMedianMs.screen.toFixed(1)} ms)${peers ? `, FPSim2 top_k ${f.serialMedianMs.fpsim2!.toFixed(1)} ms (CPU ${f.serialCpuMedianMs.fpsim2!.toFixed(1)} ms)` : ''}`,
  );
  log(
    `  screen vs BitBound only ${f.screenOverPlain.toFixed(2)}x; fingerprints read for ${(100 * f.fingerprintsRead).toFixed(2)}% of rows (BitBound left ${(100 * f.bitboundLeft).toFixed(0)}%); identical results ${identical}/${nq}`,
  );
  if (peers)
    log(
      `  ours (screen) vs FPSim2, 1 thread: ${f.fpsim2OverScreen!.toFixed(2)}x wall, ${f.fpsim2OverScreenCpu!.toFixed(2)}x CPU (per-query ratio median ${f.fpsim2OverScreenPerQueryMedian!.toFixed(2)}, min ${f.fpsim2OverScreenPerQueryMin!.toFixed(2)}); same top-${k} similarities as FPSim2 ${sameAsFpsim2}/${nq}`,
    );
  log(
    `  pool (${threads} threads): BitBound only ${f.poolMedianMs.plain.toFixed(1)} ms, screen ${f.poolMedianMs.screen.toFixed(1)} ms${peers ? `, FPSim2 ${threads} workers ${f.poolMedianMs.fpsim2!.toFixed(1)} ms (${f.poolFpsim2OverScreen!.toFixed(2)}x)` : ''}; identical to 1 thread ${poolIdentical}/${2 * nq}`,
  );
}
for (const p of Object.values(pools)) await p.close();
const vs = runFigures.map((f) => f.fpsim2OverScreen as number);
if (peers) {
  log(
    `\nours (screen) vs FPSim2 top_k over ${runs} runs, ratio of medians, 1 thread: ${spread(vs)}; pool: ${spread(runFigures.map((f) => f.poolFpsim2OverScreen as number))}`,
  );
  log(
    `screen vs BitBound only over ${runs} runs: ${spread(runFigures.map((f) => f.screenOverPlain as number))}`,
  );
}
let rdkit: Record<string, number> | undefined;
if (peers && rdkitQ > 0) {
  const t: { ms: number[]; cpu: number[] } = { ms: [], cpu: [] };
  for (let qi = 0; qi < Math.min(rdkitQ, nq); qi++) {
    const r = await peers.rdkit(qi);
    t.ms.push(r.ms);
    t.cpu.push(r.cpuMs);
  }
  rdkit = { ms: mean(t.ms), cpuMs: mean(t.cpu) };
  const oursCpu = median(runFigures.map((f) => (f.serialCpuMedianMs as { screen: number }).screen));
  log(
    `RDKit BulkTanimotoSimilarity + top-k: ${rdkit.ms.toFixed(1)} ms (${rdkit.cpuMs.toFixed(1)} ms CPU) per query; ours ${(rdkit.cpuMs / oursCpu).toFixed(0)}x faster (CPU)`,
  );
}
await peers?.close();
writeFileSync(
  join(OUT, `fingerprint-${n}.json`),
  JSON.stringify({ n, queries: nq, k, threads, kernel: kf, runs: runFigures, rdkit }, null, 2),
);
