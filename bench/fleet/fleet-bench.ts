/**
 * The fleet benchmark (issue 14): one catalog published to a real S3-compatible server (moto on
 * loopback), served by 1, 2 and 4 `molsearch worker` processes, with an API in this process that
 * fans `/molsearch` out to them (FLEET_SEARCH). Per worker count: time until every shard is held
 * (cold start from S3), `/molsearch` latency p50/p95 (k=100, real query molecules, sequential),
 * the time of a 100,000-neighbour job (`/submit_molsearch` → SUCCESS) and each worker's resident
 * memory. Needs PostgreSQL on 127.0.0.1:5432 (shared by the API and the workers) and the
 * fingerprint benchmark's data: `bench/out/fps-<n>.u8` (made here with Python RDKit in .tools/pyoff
 * when missing: real Morgan fingerprints of catalog_merged plus bit-perturbed copies).
 *
 * `node bench/fleet/fleet-bench.ts [--n 2000000] [--workers 1,2,4] [--queries 30] [--job-k 100000]`
 * writes bench/out/fleet-<n>.json.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import pg from 'pg';
import { openCatalog, publishCatalog } from '../../engine/catalog/index.ts';
import { listMembers } from '../../engine/fleet/members.ts';
import { createS3ObjectStore } from '../../platform/object-store/index.ts';
import { loadConfig } from '../../platform/config.ts';
import { createLogger } from '../../platform/logger.ts';
import { resolveTemporalCli } from '../../platform/temporal/cli.ts';
import { startDevServer } from '../../platform/temporal/dev-server.ts';
// The API in this process (inject(), no HTTP hop), composed exactly as `molsearch api` composes it.
// eslint-disable-next-line no-restricted-imports
import { startStack } from '../../bin/stack.ts';
import { startS3Server } from '../../testkit/s3-server.ts';
import { freePort } from '../../testkit/ports.ts';
import { writeFormatCatalog, writeFormatManifest } from '../../testkit/format-catalog.ts';
import type { CatalogManifest } from '../../engine/catalog/schema.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const OUT = join(ROOT, 'bench/out');
const SOURCE = '/work/shared/data/catalog/catalog_merged.tsv.gz';
const argv = process.argv.slice(2);
const arg = (name: string, def: string): string => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : def);
const n = Number(arg('--n', '2000000'));
const workerCounts = arg('--workers', '1,2,4').split(',').map(Number);
const nq = Number(arg('--queries', '30'));
const jobK = Number(arg('--job-k', '100000'));
// Rendezvous shares are uneven with few shards per worker: the budget leaves room above the mean.
const memFactor = Number(arg('--mem-factor', '1.6'));
// A cap on the whole fleet's shard memory (GiB), for catalogs near the machine's memory.
const memTotal = Number(arg('--mem-total', '0')) * 2 ** 30;
// The cold-start wait ends when placement has not changed for this long (a loaded machine needs more).
const settleMs = Number(arg('--settle-s', '10')) * 1000;
const log = (...a: unknown[]): void => console.log(...a);
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];

mkdirSync(OUT, { recursive: true });
const fpsPath = join(OUT, `fps-${n}.u8`);
const catDir = join(OUT, `catalog-${n}`);
// Past 2 GiB of fingerprints the catalog is written shard by shard from the real rows (big-catalog.ts).
const big = n * 256 >= 2 ** 31;
const realPath = join(OUT, 'fps-real.u8');
const need = big ? realPath : fpsPath;
if (!existsSync(join(catDir, 'manifest.json')) && !existsSync(need)) {
  log(`computing fingerprints with Python RDKit -> ${fpsPath}`);
  const r = spawnSync(
    'nice',
    [
      '-n',
      '19',
      join(ROOT, '.tools/pyoff/bin/python'),
      join(ROOT, 'bench/fingerprint/make_fps.py'),
      SOURCE,
      String(big ? 1000 : n),
      '1',
    ],
    { stdio: 'inherit' },
  );
  if (r.status !== 0) throw new Error('make_fps.py failed');
}
if (!existsSync(join(catDir, 'manifest.json'))) {
  log(`writing catalog shards -> ${catDir}`);
  if (big) {
    // Two processes (this machine's cores), each writing every other shard.
    const parts = await Promise.all(
      [0, 1].map(
        (p) =>
          new Promise<CatalogManifest['shards']>((ok, fail) =>
            spawn(
              process.execPath,
              [
                join(ROOT, 'bench/fleet/big-catalog.ts'),
                realPath,
                catDir,
                `bench-${n}`,
                String(n),
                String(p),
                '2',
              ],
              { stdio: 'inherit' },
            ).once('exit', (code) =>
              code === 0
                ? ok(
                    JSON.parse(
                      readFileSync(join(catDir, `part-${p}.json`), 'utf8'),
                    ) as CatalogManifest['shards'],
                  )
                : fail(new Error(`big-catalog part ${p} exited ${code}`)),
            ),
          ),
      ),
    );
    writeFormatManifest(
      catDir,
      `bench-${n}`,
      n,
      parts[0].map((s, i) => s ?? parts[1][i]),
    );
    [0, 1].forEach((p) => rmSync(join(catDir, `part-${p}.json`)));
  } else writeFormatCatalog(catDir, `bench-${n}`, new Uint8Array(readFileSync(fpsPath)), 131_072);
}
const catalog = await openCatalog(catDir);
const id = catalog.manifest.id;

// Real query molecules: seeded rows of the source (the catalog's first 802,238 rows are their fingerprints).
const smiles = gunzipSync(readFileSync(SOURCE))
  .toString('utf8')
  .split('\n')
  .slice(1)
  .map((l) => l.split('\t')[0]);
let seed = 4242;
const rand = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
const queries = Array.from({ length: nq + 3 }, () => smiles[Math.floor(rand() * Math.min(n, smiles.length))]);

const dir = mkdtempSync(join(tmpdir(), 'fleet-bench-'));
const s3 = await startS3Server();
const cli = resolveTemporalCli({ toolsDir: join(ROOT, '.tools'), log: () => {} });
const temporal = await startDevServer({ cli, port: await freePort(), uiPort: await freePort() });
const dbName = `molsearch_fleet_bench_${process.pid}`;
const admin = async (sql: string) => {
  const c = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
  await c.connect();
  await c.query(sql).finally(() => c.end());
};
await admin(`CREATE DATABASE ${dbName}`);
const bucket = 'fleet-bench';
const env: Record<string, string> = {
  DATABASE_URL: `postgres://postgres@127.0.0.1:5432/${dbName}`,
  TEMPORAL_ADDRESS: temporal.address,
  TASK_QUEUE_PREFIX: 'bench',
  S3_ENDPOINT: s3.endpoint,
  S3_BUCKET: bucket,
  S3_ACCESS_KEY_ID: 'x',
  S3_SECRET_ACCESS_KEY: 'x',
  S3_FORCE_PATH_STYLE: 'true',
  CATALOG_DIR: join(dir, 'empty'),
  FLEET_HEARTBEAT_MS: '1000',
  FLEET_STALE_MS: '5000',
  FLEET_SEARCH: 'true',
  SEARCH_BUDGET_MS: '30000',
  ENGINE_THREADS: '1',
  LOG_LEVEL: 'warn',
  BUILD_BUNDLED_CATALOGS: 'false',
  PORT: '0',
};
const store = createS3ObjectStore({
  endpoint: s3.endpoint,
  region: 'us-east-1',
  bucket,
  accessKeyId: 'x',
  secretAccessKey: 'x',
  forcePathStyle: true,
});
await store.ensureBucket();
let t = performance.now();
const pub = await publishCatalog({ dir: catDir, store });
const publishS = (performance.now() - t) / 1000;
log(
  `${n.toLocaleString()} fingerprints in ${catalog.manifest.shards.length} shards; published ${(pub.bytesUploaded / 2 ** 30).toFixed(2)} GiB in ${publishS.toFixed(1)} s; load ${loadavg()[0].toFixed(1)}`,
);

const stack = await startStack(
  loadConfig({ ...env, DATA_DIR: join(dir, 'api') }),
  createLogger({ level: 'warn', pretty: false }),
  { worker: false, ensureCatalogs: false, listen: false },
);
const key = (await stack.store.accounts.createApiKey({ user: 'bench', tier: 'enterprise' })).key;
const get = (url: string) => stack.app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });

function spawnWorker(w: string, memBytes: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [join(ROOT, 'bin/molsearch.ts'), 'worker'], {
    env: {
      ...process.env,
      ...env,
      WORKER_ID: w,
      DATA_DIR: join(dir, w),
      SHARD_CACHE_DIR: join(dir, `cache-${w}`),
      SHARD_CACHE_MEMORY_BYTES: String(memBytes),
      // As the soak runs workers: glibc's per-thread arenas otherwise hold freed shard buffers.
      MALLOC_ARENA_MAX: '2',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((ok, fail) => {
    child.stdout!.on('data', (d: Buffer) => d.toString().includes('worker ready') && ok(child));
    child.once('exit', (code) => fail(new Error(`worker ${w} exited ${code}`)));
  });
}
const rssMiB = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

const results = [];
const shardCount = catalog.manifest.shards.length;
const fileBytes = pub.files.reduce((s, f) => s + f.bytes, 0);
for (const W of workerCounts) {
  const share = (fileBytes + n * 32) / W;
  const mem = Math.ceil(memTotal ? Math.min(share * memFactor, memTotal / W) : share * memFactor);
  t = performance.now();
  const procs = await Promise.all(Array.from({ length: W }, (_, i) => spawnWorker(`b${W}-${i}`, mem)));
  // Until every shard is held, or placement has not changed for --settle-s (10 s) (a share beyond a worker's
  // memory budget stays uncovered: its scans fetch through the cache, reported below).
  let uncovered = shardCount;
  let lastChange = Date.now();
  for (;;) {
    const live = (await listMembers(store, 'bench', 5000)).live;
    const held = new Set(live.flatMap((m) => m.held.map((h) => h.shard)));
    if (shardCount - held.size !== uncovered) lastChange = Date.now();
    uncovered = shardCount - held.size;
    if (live.length === W && (uncovered === 0 || Date.now() - lastChange > settleMs)) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  const coldS = (performance.now() - t) / 1000;
  await new Promise((r) => setTimeout(r, 1500)); // the API's membership cache
  const lat: number[] = [];
  let partial = 0;
  for (const [i, q] of queries.entries()) {
    const t0 = performance.now();
    const res = await get(
      `/molsearch?search_input=${encodeURIComponent(q)}&search_type=morgan&db_names=${id}&n_neighbors=100&descriptors=false&properties=false`,
    );
    const ms = performance.now() - t0;
    if (res.statusCode !== 200) throw new Error(`molsearch ${res.statusCode}: ${res.body}`);
    if (res.headers['x-molsearch-coverage'] !== '1.0000') partial++;
    if (i >= 3) lat.push(ms); // the first queries warm the paths
  }
  t = performance.now();
  const job = (
    await get(
      `/submit_molsearch?search_input=${encodeURIComponent(queries[0])}&search_type=morgan&db_names=${id}&n_neighbors=${jobK}`,
    )
  ).json() as string;
  let status = '';
  // Peak RSS per worker while the job scans and merges (the merge is what used to hold every shard).
  const peak = procs.map((p) => rssMiB(p.pid!));
  while (!['SUCCESS', 'FAILURE', 'REVOKED'].includes(status)) {
    await new Promise((r) => setTimeout(r, 200));
    procs.forEach((p, i) => (peak[i] = Math.max(peak[i], rssMiB(p.pid!))));
    status = (await get(`/job_status?job_name=${job}`)).json() as string;
  }
  const jobS = (performance.now() - t) / 1000;
  const rss = procs.map((p) => rssMiB(p.pid!));
  const r = {
    workers: W,
    uncovered,
    coldStartS: coldS,
    p50Ms: pct(lat, 0.5),
    p95Ms: pct(lat, 0.95),
    partial,
    jobStatus: status,
    jobS,
    rssMiB: rss,
    jobPeakRssMiB: peak,
    memBudgetMiB: mem / 2 ** 20,
    load: loadavg()[0],
  };
  results.push(r);
  log(
    `${W} worker(s): ${shardCount - uncovered}/${shardCount} shards held after ${coldS.toFixed(1)} s; /molsearch p50 ${r.p50Ms.toFixed(0)} ms, p95 ${r.p95Ms.toFixed(0)} ms (${lat.length} queries, ${partial} partial); job k=${jobK} ${status} in ${jobS.toFixed(1)} s; RSS per worker ${rss.map((x) => x.toFixed(0)).join(', ')} MiB (peak in the job ${peak.map((x) => x.toFixed(0)).join(', ')}; budget ${(mem / 2 ** 20).toFixed(0)} MiB each); load ${r.load.toFixed(1)}`,
  );
  await Promise.all(
    procs.map(
      (p) =>
        new Promise((ok) => {
          p.once('exit', ok);
          p.kill('SIGTERM');
        }),
    ),
  );
  writeFileSync(
    join(OUT, `fleet-${n}-w${workerCounts.join('-')}.json`),
    JSON.stringify({ n, shards: shardCount, publishS, results }, null, 1),
  );
  // Each run's disk caches hold a copy of the catalog: drop them before the next.
  for (let i = 0; i < W; i++) rmSync(join(dir, `cache-b${W}-${i}`), { recursive: true, force: true });
}
await stack.stop();
await temporal.stop();
await s3.stop();
await admin(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
rmSync(dir, { recursive: true, force: true });
