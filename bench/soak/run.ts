// Mixed-load soak of the service (issue 15, part 7): starts `molsearch start` as a separate process
// on a catalog directory and drives it for --minutes with a mix of what users send — similarity
// (legacy and v2), substructure (cheap and expensive SMARTS), seeded samples, bad inputs (422s),
// keys in query strings, and legacy jobs that are paged with changing filters — while sampling the
// resident memory (RSS) of the service and of its Temporal child. Reports RSS over time, growth
// after warm-up and every unexpected answer (5xx, network errors, statuses a request cannot have).
//   node bench/soak/run.ts [--minutes 30] [--catalog-dir data/catalogs] [--concurrency 2]
//     [--sample-seconds 10] [--warmup-minutes 3] [--out bench/out/soak.json] [--catalogs a,b]
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { freePort } from '../../testkit/ports.ts';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '30' },
    'catalog-dir': { type: 'string', default: 'data/catalogs' },
    concurrency: { type: 'string', default: '2' },
    'sample-seconds': { type: 'string', default: '10' },
    'warmup-minutes': { type: 'string', default: '3' },
    out: { type: 'string', default: 'bench/out/soak.json' },
    catalogs: { type: 'string' },
  },
});
const durationMs = Number(values.minutes) * 60_000;
const warmupMs = Number(values['warmup-minutes']) * 60_000;

const dataDir = await mkdtemp(join(tmpdir(), 'bench-soak-'));
const [port, tport, uiport] = [await freePort(), await freePort(), await freePort()];
const child = spawn(process.execPath, ['bin/molsearch.ts', 'start'], {
  env: {
    ...process.env,
    DATA_DIR: dataDir,
    CATALOG_DIR: resolve(values['catalog-dir']!),
    BUILD_BUNDLED_CATALOGS: 'false',
    PORT: String(port),
    TEMPORAL_PORT: String(tport),
    TEMPORAL_UI_PORT: String(uiport),
    LOG_LEVEL: 'warn',
    ...(values.catalogs ? { CATALOGS: values.catalogs } : {}),
  },
  stdio: ['ignore', 'pipe', 'pipe'],
});
let out = '';
child.stdout!.on('data', (d) => (out += d));
let serverErrors = 0;
child.stderr!.on('data', (d: Buffer) => {
  // The service logs JSON lines; level 50+ is an error it logged (a 5xx, a failed thread).
  for (const line of d.toString().split('\n')) if (/"level":(5|6)\d/.test(line)) serverErrors++;
});
while (!/development key:\s+(\S+)/.test(out)) {
  if (child.exitCode !== null) throw new Error(`service exited: ${out}`);
  await new Promise((r) => setTimeout(r, 200));
}
const key = /development key:\s+(\S+)/.exec(out)![1];
const base = `http://127.0.0.1:${port}`;
const H = { 'X-API-Key': key };
const J = { 'x-api-key': key, 'content-type': 'application/json' };

const rssMb = (pid: number): number => {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Math.round(Number(m[1]) / 1024) : NaN;
  } catch {
    return NaN;
  }
};
const temporalPid = (): number =>
  (JSON.parse(readFileSync(join(dataDir, 'temporal.pid'), 'utf8')) as { pid: number }).pid;

const dbs = Object.keys(
  (await (await fetch(`${base}/available_databases`, { headers: H })).json()) as object,
);
const lines = gunzipSync(readFileSync('catalogs/sources/zinc15_sample.tsv.gz')).toString('utf8').split('\n');
const pool = lines.slice(1, 20_001).map((l) => l.split('\t')[0]);
let seed = 7;
const rand = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32;
const pick = <T>(xs: T[]): T => xs[Math.floor(rand() * xs.length)];
const SMARTS = ['[#6]=[#8]', 'c1ccccc1', 'C(F)(F)F', '[NX3][CX3](=O)', '[#7]~[#6]~[#8]', 'c1ccncc1'];
const HARD = Array(30).fill('[!#1]').join('~');

interface Counter {
  n: number;
  unexpected: number;
  ms: number;
}
const counts: Record<string, Counter> = {};
const unexpected: string[] = [];
async function hit(kind: string, expect: number[], url: string, init: RequestInit = {}): Promise<unknown> {
  const c = (counts[kind] ??= { n: 0, unexpected: 0, ms: 0 });
  const t = performance.now();
  let status = 0;
  let body: unknown;
  try {
    const res = await fetch(base + url, { ...init, signal: AbortSignal.timeout(60_000) });
    status = res.status;
    const text = await res.text();
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
  } catch (err) {
    status = -1;
    body = String(err);
  }
  c.n++;
  c.ms += performance.now() - t;
  if (!expect.includes(status)) {
    c.unexpected++;
    if (unexpected.length < 50) unexpected.push(`${kind} ${status} ${JSON.stringify(body).slice(0, 200)}`);
  }
  return body;
}

const qs = (p: Record<string, string | number | boolean>) =>
  new URLSearchParams(Object.entries(p).map(([k, v]) => [k, String(v)] as [string, string])).toString();
const jobs: string[] = [];
const ops: (() => Promise<unknown>)[] = [
  () =>
    hit(
      'molsearch',
      [200],
      `/molsearch?${qs({
        search_input: pick(pool),
        search_type: 'morgan',
        n_neighbors: 20,
        db_names: pick(dbs),
        descriptors: true,
      })}`,
      { headers: H },
    ),
  () =>
    hit('v2_search', [200], '/api/v2/search', {
      method: 'POST',
      headers: J,
      body: JSON.stringify({ query_smiles: pick(pool), database_id: pick(dbs), limit: 50 }),
    }),
  () =>
    hit('v2_substructure', [200], '/api/v2/search_substructure', {
      method: 'POST',
      headers: J,
      body: JSON.stringify({
        query: { format: 'smarts', value: rand() < 0.1 ? HARD : pick(SMARTS) },
        database_id: pick(dbs),
        limit: 100,
        timeout_seconds: 2,
      }),
    }),
  () =>
    hit('v2_sample', [200], '/api/v2/sample', {
      method: 'POST',
      headers: J,
      body: JSON.stringify({ database_id: pick(dbs), count: 20, seed: Math.floor(rand() * 1e6) }),
    }),
  () =>
    hit('bad_smiles', [422], `/molsearch?search_input=C1CC(${Math.floor(rand() * 1e6)}&search_type=morgan`, {
      headers: H,
    }),
  () =>
    hit('bad_smarts', [422], '/api/v2/search_substructure', {
      method: 'POST',
      headers: J,
      body: JSON.stringify({ query: { format: 'smarts', value: `C1C[${rand()}` }, database_id: dbs[0] }),
    }),
  () => hit('key_in_query', [401, 200], `/available_databases?api_key=${key}`),
  () => hit('catalog', [200], '/api/v2/catalog', { headers: J }),
  async () => {
    if (jobs.length < 6 || rand() < 0.05) {
      const name = await hit(
        'submit_job',
        [200],
        `/submit_molsearch?${qs({
          search_input: pick(pool),
          search_type: 'morgan',
          n_neighbors: 5000,
          db_names: dbs[0],
        })}`,
        { headers: H },
      );
      if (typeof name === 'string') jobs.push(name);
      return;
    }
    const job = pick(jobs);
    return hit(
      'job_page',
      [200],
      `/get_molsearch_page?${qs({
        job_name: job,
        page_num: Math.floor(rand() * 5),
        page_size: 100,
        sim_th: (rand() * 0.5).toFixed(2),
        include_properties: true,
      })}`,
      { method: 'POST', headers: { ...H, 'content-type': 'application/json' }, body: '{}' },
    );
  },
];

const t0 = Date.now();
const series: {
  t_s: number;
  rss_mb: number;
  temporal_rss_mb: number;
  requests: number;
  unexpected: number;
  heaps_mb: number;
  wasm_mb: number;
  array_buffers_mb: number;
  native_mb: number;
  mem: Record<string, number>;
}[] = [];
const total = () => Object.values(counts).reduce((s, c) => s + c.n, 0);
const totalUnexpected = () => Object.values(counts).reduce((s, c) => s + c.unexpected, 0);
/**
 * The service's own memory breakdown from /metrics (MB): each isolate's heap, external memory and
 * WASM memories (`<pool>.<slot>.<kind>`), so RSS growth can be attributed; what no isolate
 * accounts for (RSS minus heaps, WASM memories and array buffers) is native memory.
 */
async function memoryBreakdown(): Promise<Record<string, number>> {
  try {
    const text = await (await fetch(`${base}/metrics`, { signal: AbortSignal.timeout(10_000) })).text();
    const out: Record<string, number> = {};
    for (const m of text.matchAll(/^isolate_memory_bytes\{(.*)\} (\S+)$/gm)) {
      const l = Object.fromEntries([...m[1].matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
      out[`${l.pool}.${l.slot}.${l.kind}`] = Math.round(Number(m[2]) / 2 ** 20);
    }
    for (const m of text.matchAll(/^cache_bytes\{cache="([^"]*)"\} (\S+)$/gm))
      out[`cache.${m[1]}`] = Math.round(Number(m[2]) / 2 ** 20);
    return out;
  } catch {
    return {};
  }
}
const sample = async () => {
  const rss = rssMb(child.pid!);
  const mem = await memoryBreakdown();
  const sum = (kind: string) =>
    Object.entries(mem)
      .filter(([k]) => k.includes(kind))
      .reduce((s, [, v]) => s + v, 0);
  const row = {
    t_s: Math.round((Date.now() - t0) / 1000),
    rss_mb: rss,
    temporal_rss_mb: rssMb(temporalPid()),
    requests: total(),
    unexpected: totalUnexpected(),
    heaps_mb: sum('.heap_used'),
    wasm_mb: sum('.wasm_'),
    array_buffers_mb: sum('.array_buffers'),
    native_mb: rss - sum('.heap_used') - sum('.wasm_') - sum('.array_buffers'),
    mem,
  };
  series.push(row);
  console.error(JSON.stringify(row));
};
await sample();
const sampler = setInterval(() => void sample(), Number(values['sample-seconds']) * 1000);
await Promise.all(
  Array.from({ length: Number(values.concurrency) }, async () => {
    while (Date.now() - t0 < durationMs) await pick(ops)();
  }),
);
clearInterval(sampler);
await sample();

const after = series.filter((s) => s.t_s * 1000 >= warmupMs);
const rss = after.map((s) => s.rss_mb);
const result = {
  minutes: Number(values.minutes),
  concurrency: Number(values.concurrency),
  databases: dbs,
  requests: total(),
  requests_per_s: +(total() / ((Date.now() - t0) / 1000)).toFixed(1),
  unexpected_answers: totalUnexpected(),
  errors_logged_by_service: serverErrors,
  by_kind: Object.fromEntries(
    Object.entries(counts).map(([k, c]) => [
      k,
      { n: c.n, unexpected: c.unexpected, mean_ms: +(c.ms / c.n).toFixed(1) },
    ]),
  ),
  rss_mb_start: series[0].rss_mb,
  rss_mb_after_warmup: rss[0],
  rss_mb_end: rss[rss.length - 1],
  rss_mb_max_after_warmup: Math.max(...rss),
  rss_growth_after_warmup_mb: rss.length ? rss[rss.length - 1] - rss[0] : NaN,
  temporal_rss_mb_end: series[series.length - 1].temporal_rss_mb,
  // Where the growth after warm-up went: RSS, then each part of the breakdown (MB, last − first).
  growth_after_warmup_mb: (() => {
    const [first, last] = [series.find((x) => x.t_s * 1000 >= warmupMs), series[series.length - 1]];
    if (!first) return {};
    const keys = new Set([...Object.keys(first.mem), ...Object.keys(last.mem)]);
    const parts = Object.fromEntries(
      [...keys].map((k) => [k, (last.mem[k] ?? 0) - (first.mem[k] ?? 0)]).filter(([, v]) => v !== 0),
    );
    return {
      rss: last.rss_mb - first.rss_mb,
      heaps: last.heaps_mb - first.heaps_mb,
      wasm: last.wasm_mb - first.wasm_mb,
      array_buffers: last.array_buffers_mb - first.array_buffers_mb,
      native: last.native_mb - first.native_mb,
      parts,
    };
  })(),
  unexpected_samples: unexpected,
  series,
};
mkdirSync(dirname(values.out!), { recursive: true });
writeFileSync(values.out!, JSON.stringify(result, null, 2));
const { series: _omit, ...summary } = result;
console.log(JSON.stringify(summary, null, 2));
child.kill('SIGTERM');
await new Promise((r) => child.once('exit', r));
