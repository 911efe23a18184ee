// One user's slow substructure queries must not stall everyone (issue 15, part 2): starts the
// service (`molsearch start`) as a separate process on a catalog directory, keeps three
// pathological SMARTS running (timeout_seconds 3, each re-sent as soon as it answers), and
// meanwhile sends trivial `[#6]=[#8]` queries (timeout_seconds 0.5) one after another, and
// invalid SMARTS. Reports p50/p95/p99 of the trivial ones (goal p99 <= 300 ms), how many timed
// out, and the latency of the 422s.
//   node bench/http/substructure-contention.ts [--catalog-dir data/catalogs] [--catalog zinc15_sample]
//     [--queries 200] [--threads 2] [--slice-ms 10]
import { spawn } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { freePort } from '../../testkit/ports.ts';

const { values } = parseArgs({
  options: {
    'catalog-dir': { type: 'string', default: 'data/catalogs' },
    catalog: { type: 'string', default: 'zinc15_sample' },
    queries: { type: 'string', default: '200' },
    threads: { type: 'string', default: '2' },
    'slice-ms': { type: 'string', default: '10' },
  },
});
const nQueries = Number(values.queries);
// Exhaustive searches: long chains of any heavy atom (almost no product has 46 heavy atoms in a
// path, and proving it visits every path), a 14-ring of any atoms, and a recursive chain.
const PATHOLOGICAL = [
  Array(46).fill('[!#1]').join('~'),
  `[!#1]1${'~[!#1]'.repeat(12)}~[!#1]1`,
  Array(12).fill('[$(*~*~*~*~*~*~*~*)]').join('~'),
];

const dataDir = await mkdtemp(join(tmpdir(), 'bench-substructure-'));
const [port, tport, uiport] = [await freePort(), await freePort(), await freePort()];
const child = spawn(process.execPath, ['bin/molsearch.ts', 'start'], {
  env: {
    ...process.env,
    DATA_DIR: dataDir,
    CATALOG_DIR: resolve(values['catalog-dir']!),
    CATALOGS: values.catalog,
    BUILD_BUNDLED_CATALOGS: 'false',
    PORT: String(port),
    TEMPORAL_PORT: String(tport),
    TEMPORAL_UI_PORT: String(uiport),
    LOG_LEVEL: 'warn',
    ENGINE_THREADS: '1',
    SUBSTRUCTURE_THREADS: values.threads,
    SUBSTRUCTURE_SLICE_MS: values['slice-ms'],
  },
  stdio: ['ignore', 'pipe', 'inherit'],
});
let out = '';
child.stdout!.on('data', (d) => (out += d));
while (!/development key:\s+(\S+)/.test(out)) {
  if (child.exitCode !== null) throw new Error(`service exited: ${out}`);
  await new Promise((r) => setTimeout(r, 200));
}
const key = /development key:\s+(\S+)/.exec(out)![1];
const base = `http://127.0.0.1:${port}`;

interface Answer {
  status: number;
  ms: number;
  timedOut?: boolean;
  results?: number;
}
async function sub(value: string, timeout_seconds: number, limit = 100): Promise<Answer> {
  const t = performance.now();
  const res = await fetch(`${base}/api/v2/search_substructure`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({
      query: { format: 'smarts', value },
      database_id: values.catalog,
      limit,
      timeout_seconds,
    }),
  });
  const body = (await res.json()) as { timed_out?: boolean; results?: unknown[] };
  return {
    status: res.status,
    ms: performance.now() - t,
    timedOut: body.timed_out,
    results: body.results?.length,
  };
}

// Warm-up: every thread has the library and its index (a running service's steady state).
console.error('warming up (first scans build the per-thread index)...');
await Promise.all(Array.from({ length: Number(values.threads) * 2 }, () => sub('[#6]', 60, 200)));
for (const q of PATHOLOGICAL) {
  const a = await sub(q, 3);
  console.error(`pathological alone: ${a.ms.toFixed(0)} ms, timed_out ${a.timedOut}, status ${a.status}`);
}

// Baseline: the trivial query alone on the same service.
const alone: number[] = [];
for (let i = 0; i < 30; i++) alone.push((await sub('[#6]=[#8]', 0.5, 10)).ms);

let running = true;
const slow: Answer[] = [];
const loops = PATHOLOGICAL.map(async (q) => {
  while (running) slow.push(await sub(q, 3));
});
await new Promise((r) => setTimeout(r, 500));
const trivial: Answer[] = [];
const invalid: Answer[] = [];
for (let i = 0; i < nQueries; i++) {
  trivial.push(await sub('[#6]=[#8]', 0.5, 10));
  if (i % 10 === 0) invalid.push(await sub('C1CC[', 3));
  await new Promise((r) => setTimeout(r, 20));
}
running = false;
await Promise.all(loops);

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return +s[Math.min(s.length - 1, Math.floor(p * s.length))].toFixed(1);
};
const ms = trivial.map((a) => a.ms);
console.log(
  JSON.stringify(
    {
      catalog: values.catalog,
      substructure_threads: Number(values.threads),
      slice_ms: Number(values['slice-ms']),
      trivial_alone_p50_ms: pct(alone, 0.5),
      trivial_alone_p99_ms: pct(alone, 0.99),
      trivial_queries: trivial.length,
      trivial_p50_ms: pct(ms, 0.5),
      trivial_p95_ms: pct(ms, 0.95),
      trivial_p99_ms: pct(ms, 0.99),
      trivial_max_ms: pct(ms, 1),
      trivial_timed_out: trivial.filter((a) => a.timedOut).length,
      trivial_not_200: trivial.filter((a) => a.status !== 200).length,
      trivial_incomplete: trivial.filter((a) => a.results !== 10).length,
      invalid_422: invalid.filter((a) => a.status === 422).length,
      invalid_p99_ms: pct(
        invalid.map((a) => a.ms),
        0.99,
      ),
      pathological_answers: slow.length,
      pathological_timed_out: slow.filter((a) => a.timedOut).length,
      pathological_not_200: slow.filter((a) => a.status !== 200).length,
      goal_trivial_p99_ms: 300,
    },
    null,
    2,
  ),
);
child.kill('SIGTERM');
await new Promise((r) => child.once('exit', r));
