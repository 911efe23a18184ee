/**
 * `/molsearch` 3D latency through HTTP, end to end: starts the service (`molsearch start`, as
 * bench/http/molsearch-latency.ts does) on a catalog directory holding a 3D-ready catalog, with its
 * Python chem3d worker for the query embeddings, then sends sequential requests per search type and
 * quality and reports p50/p95 with the server's own split (embedding, first stage, exact stage)
 * parsed from each answer's remarks:
 *
 *   node bench/shape/http-latency.ts [--catalog-dir data/catalogs] [--db chembl_drugs]
 *        [--queries 50] [--queries-accurate 20] [--warmup 5] [--k 30]
 *        [--types espsim_shape,espsim_electrostatic] [--qualities fast,accurate]
 *
 * Queries: seeded random approved drugs of catalogs/sources/chembl_drugs.smi.gz, a fresh draw for
 * every type and quality, so no request is answered from the service's cache of query embeddings
 * (api/services/query-embedder.ts) and each pays its embedding; `--repeat-queries` sends the same
 * list to every type and quality instead (before the cache, the only way: later types then hit it).
 * The catalog directory is only read (DATA_DIR is a temporary directory, no catalog is built).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { startServiceProcess } from '../../testkit/service-process.ts';

const { values } = parseArgs({
  options: {
    'catalog-dir': { type: 'string', default: 'data/catalogs' },
    db: { type: 'string', default: 'chembl_drugs' },
    queries: { type: 'string', default: '50' },
    // `accurate` aligns 7–13× the rows of `fast`: fewer requests keep the run within minutes.
    'queries-accurate': { type: 'string', default: '20' },
    warmup: { type: 'string', default: '5' },
    k: { type: 'string', default: '30' },
    types: { type: 'string', default: 'espsim_shape,espsim_electrostatic' },
    qualities: { type: 'string', default: 'fast,accurate' },
    'repeat-queries': { type: 'boolean', default: false },
  },
});
const nQueries = Number(values.queries);
const warmup = Number(values.warmup);
const k = Number(values.k);
const load0 = loadavg();

const dataDir = await mkdtemp(join(tmpdir(), 'bench-shape-http-'));
const t0 = Date.now();
const service = await startServiceProcess(
  {
    DATA_DIR: dataDir,
    CATALOG_DIR: resolve(values['catalog-dir']!),
    CATALOGS: values.db!,
    BUILD_BUNDLED_CATALOGS: 'false',
    // `start` runs the chem3d worker (query embeddings); the catalog is 3D-ready, so no stage runs.
    CHEM3D_WORKER: 'true',
    CATALOG_3D: 'start',
    // As deployed: the engine threads default to the cores (at most 8).
    ENGINE_THREADS: String(Math.min(availableParallelism(), 8)),
    TASK_QUEUE_PREFIX: `bench${process.pid}`,
  },
  { timeoutMs: 600_000, echoStderr: true },
);
const child = service.child;
const stop = async () => {
  await service.stop();
  await rm(dataDir, { recursive: true, force: true });
};
const key = service.key;
const base = service.url.replace(/\/$/, '');
const headers = { 'X-API-Key': key };
console.error(`service up in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

const drugs = gunzipSync(readFileSync('catalogs/sources/chembl_drugs.smi.gz'))
  .toString('utf8')
  .trim()
  .split('\n')
  .map((l) => l.split(/\s+/)[0]);
let seed = 42;
const rand = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32;

interface Timing {
  ms: number;
  embed: number;
  first: number;
  exact: number;
  candidates: number;
}

const unavailable: { smiles: string; ms: number }[] = [];

/** One request; null when the query cannot be embedded (a 422 naming search_input: skipped). */
async function one(smiles: string, type: string, quality: string): Promise<Timing | null> {
  const url =
    `${base}/molsearch?search_input=${encodeURIComponent(smiles)}&search_type=${type}` +
    `&search_quality=${quality}&n_neighbors=${k}&db_names=${values.db}`;
  const t = performance.now();
  const res = await fetch(url, { headers });
  const body = (await res.json()) as { neighbors?: unknown[]; remarks?: unknown; detail?: unknown };
  const ms = performance.now() - t;
  if (res.status === 422 && JSON.stringify(body.detail).includes('search_input')) return null;
  if (res.status !== 200 || !body.neighbors?.length) {
    // A 503 (the 3D worker late on a loaded machine) is counted and reported, not fatal.
    if (res.status === 503) {
      unavailable.push({ smiles, ms: Math.round(ms) });
      console.error(`503 after ${Math.round(ms)} ms for ${smiles}`);
      return null;
    }
    throw new Error(`unexpected answer ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
  }
  // `remarks` is one string on the legacy routes: the 3D search's remark carries the server split.
  const remark = JSON.stringify(body.remarks ?? '');
  const num = (re: RegExp) => Number(re.exec(remark)?.[1] ?? NaN);
  return {
    ms,
    embed: num(/conformer\(s\) in (\d+) ms/),
    first: num(/proposed in (\d+) ms/),
    exact: num(/scored exactly in (\d+) ms/),
    candidates: num(/; (\d+) candidates proposed/),
  };
}

/**
 * CPU seconds (user + system) of the service and every process under it (Temporal dev server, the
 * chem3d worker), from /proc: what a request costs apart from the machine's load, which other work
 * on a shared machine inflates in wall time.
 */
function treeCpuSeconds(root: number): number {
  const procs = new Map<number, { ppid: number; cpu: number }>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      // Fields after the command (which may hold spaces): state ppid … utime(14) stime(15).
      const f = readFileSync(`/proc/${d}/stat`, 'utf8').split(') ')[1].split(' ');
      procs.set(Number(d), { ppid: Number(f[1]), cpu: Number(f[11]) + Number(f[12]) });
    } catch {
      // the process ended meanwhile
    }
  }
  const inTree = (pid: number): boolean => {
    for (let p = pid, hops = 0; p > 1 && hops < 64; p = procs.get(p)?.ppid ?? 0, hops++)
      if (p === root) return true;
    return false;
  };
  let ticks = 0;
  for (const [pid, p] of procs) if (inTree(pid)) ticks += p.cpu;
  return ticks / 100; // USER_HZ
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.floor(p * s.length))]);
};
const results: Record<string, unknown>[] = [];
try {
  // Without replacement (a seeded shuffle), so no query is sent twice unless repeated on purpose.
  const order = drugs.map((_, i) => i);
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  let next = 0;
  const take = (n: number) => order.slice(next, (next += n)).map((i) => drugs[i]);
  const draw = () => take(nQueries * 2);
  // Warm-up: the first 3D request loads the catalog's sidecars and builds its grid tables.
  for (const q of take(warmup)) await one(q, 'espsim_shape', 'fast');
  const repeated = draw();
  for (const quality of values.qualities!.split(','))
    for (const type of values.types!.split(',')) {
      const queries = values['repeat-queries'] ? repeated : draw();
      const times: Timing[] = [];
      let skipped = 0;
      const unavailable0 = unavailable.length;
      const want = quality === 'accurate' ? Number(values['queries-accurate']) : nQueries;
      const cpu0 = treeCpuSeconds(child.pid!);
      const wall0 = performance.now();
      for (const q of queries) {
        if (times.length === want) break;
        const t = await one(q, type, quality);
        if (t) times.push(t);
        else skipped++;
      }
      const cpu = treeCpuSeconds(child.pid!) - cpu0;
      const wall = (performance.now() - wall0) / 1000;
      const col = (f: (t: Timing) => number) => times.map(f);
      const row = {
        type,
        quality,
        requests: times.length,
        skipped_unembeddable_or_503: skipped,
        unavailable_503: unavailable.slice(unavailable0),
        p50_ms: pct(
          col((t) => t.ms),
          0.5,
        ),
        p95_ms: pct(
          col((t) => t.ms),
          0.95,
        ),
        server_p50_ms: {
          embed: pct(
            col((t) => t.embed),
            0.5,
          ),
          first_stage: pct(
            col((t) => t.first),
            0.5,
          ),
          exact: pct(
            col((t) => t.exact),
            0.5,
          ),
        },
        candidates_p50: pct(
          col((t) => t.candidates),
          0.5,
        ),
        // Mean service CPU per request, and the share of the 2 cores it got while it ran.
        service_cpu_ms_per_request: Math.round((cpu / (times.length + skipped)) * 1000),
        service_cores_used: +(cpu / wall).toFixed(2),
      };
      results.push(row);
      console.error(JSON.stringify(row));
    }
} finally {
  await stop();
}
console.log(
  JSON.stringify(
    {
      db: values.db,
      k,
      date: new Date().toISOString(),
      queries: values['repeat-queries'] ? 'one list for every type and quality' : 'a fresh draw each',
      load_average_before: load0.map((x) => +x.toFixed(1)),
      load_average_after: loadavg().map((x) => +x.toFixed(1)),
      target_p50_ms_fast: 1000,
      results,
    },
    null,
    1,
  ),
);
