// /molsearch latency through HTTP: starts the service (`molsearch start`) as a separate process on a
// catalog directory, then sends sequential queries with 100 results each and reports p50/p95.
//   node bench/http/molsearch-latency.ts [--catalog-dir data/catalogs] [--queries 200] [--k 100]
import { spawn } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { freePort } from '../../testkit/ports.ts';

const { values } = parseArgs({
  options: {
    'catalog-dir': { type: 'string', default: 'data/catalogs' },
    queries: { type: 'string', default: '200' },
    k: { type: 'string', default: '100' },
    warmup: { type: 'string', default: '20' },
    threads: { type: 'string' },
  },
});
const catalogDir = resolve(values['catalog-dir']!);
const nQueries = Number(values.queries);
const k = Number(values.k);

const dataDir = await mkdtemp(join(tmpdir(), 'bench-http-'));
const [port, tport, uiport] = [await freePort(), await freePort(), await freePort()];
const child = spawn(process.execPath, ['bin/molsearch.ts', 'start'], {
  env: {
    ...process.env,
    DATA_DIR: dataDir,
    CATALOG_DIR: catalogDir,
    BUILD_BUNDLED_CATALOGS: 'false',
    PORT: String(port),
    TEMPORAL_PORT: String(tport),
    TEMPORAL_UI_PORT: String(uiport),
    LOG_LEVEL: 'warn',
    ...(values.threads ? { ENGINE_THREADS: values.threads } : {}),
  },
  stdio: ['ignore', 'pipe', 'inherit'],
});
let out = '';
child.stdout!.on('data', (d) => (out += d));
const t0 = Date.now();
while (!/development key:\s+(\S+)/.test(out)) {
  if (child.exitCode !== null) throw new Error(`service exited: ${out}`);
  await new Promise((r) => setTimeout(r, 200));
}
const key = /development key:\s+(\S+)/.exec(out)![1];
const base = `http://127.0.0.1:${port}`;
const headers = { 'X-API-Key': key };
console.error(`service up in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

const dbs = Object.keys(
  (await (await fetch(`${base}/available_databases`, { headers })).json()) as Record<string, unknown>,
);
const totalMols = Object.values(
  (await (await fetch(`${base}/available_databases`, { headers })).json()) as Record<
    string,
    { number_of_molecules: number }
  >,
).reduce((s, d) => s + d.number_of_molecules, 0);
// Query molecules: a seeded pick of real SMILES from the bundled ZINC15 source (the benchmark
// catalog may hold placeholder SMILES beside its real fingerprints).
const lines = gunzipSync(readFileSync('catalogs/sources/zinc15_sample.tsv.gz'))
  .toString('utf8')
  .trim()
  .split('\n')
  .slice(1);
let seed = 42;
const rand = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32;
const queries = Array.from(
  { length: nQueries + Number(values.warmup) },
  () => lines[Math.floor(rand() * lines.length)].split('\t')[0],
);

async function one(smiles: string): Promise<number> {
  const url = `${base}/molsearch?search_input=${encodeURIComponent(smiles)}&search_type=morgan&n_neighbors=${k}&descriptors=true&properties=true&${dbs
    .slice(0, 2)
    .map((d) => `db_names=${d}`)
    .join('&')}`;
  const t = performance.now();
  const res = await fetch(url, { headers });
  const body = (await res.json()) as { neighbors?: unknown[] };
  const ms = performance.now() - t;
  if (res.status !== 200 || body.neighbors?.length !== k)
    throw new Error(`unexpected answer ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
  return ms;
}

for (const s of queries.slice(0, Number(values.warmup))) await one(s);
const times: number[] = [];
for (const s of queries.slice(Number(values.warmup), Number(values.warmup) + nQueries))
  times.push(await one(s));
times.sort((a, b) => a - b);
const pct = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))];
const result = {
  databases: dbs.slice(0, 2),
  molecules: totalMols,
  queries: times.length,
  k,
  p50_ms: +pct(0.5).toFixed(2),
  p95_ms: +pct(0.95).toFixed(2),
  max_ms: +times[times.length - 1].toFixed(2),
  target_p50_ms: 30,
};
console.log(JSON.stringify(result, null, 2));
child.kill('SIGTERM');
await new Promise((r) => child.once('exit', r));
