/**
 * Exhaustive 100,000-neighbour espsim_shape job (issue 9), through the service as deployed (`node
 * bin/molsearch.ts start` in a child process: Temporal dev server, PGlite, local object store,
 * in-process Node worker, the Python chem3d worker), over loopback HTTP: submit → SUCCESS, paging,
 * CSV and SDF downloads, conformer pairs scored per second, peak memory per process; beside RDKit's
 * own shape alignment (rdShapeAlign.AlignMol, bench/shape/align_peer.py) on a sample of the same
 * pairs in the same run, extrapolated to the job's pairs.
 *
 *   node bench/shape/job-bench.ts [--base DIR] [--rows 100000] [--shard-rows 65536] [--peer-rows 150]
 *
 * The catalog (bench/shape/job-catalog.ts: real conformers of the stage benchmark's ZINC15 sample
 * and perturbed copies) is built once into bench/out/shape/job-catalogs.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { loadConfig } from '../../platform/config.ts';
import { createLocalObjectStore } from '../../platform/object-store/index.ts';
import { decodeJobResult, METADATA_QUERY_3D } from '../../engine/export/index.ts';
import { openCatalog, readShard } from '../../engine/catalog/index.ts';
import { loadShard3d, molecule3d } from '../../engine/catalog/three-d-reader.ts';
import { startServiceProcess } from '../../testkit/service-process.ts';
import { writeJobCatalog } from './job-catalog.ts';

const repo = resolve(import.meta.dirname, '../..');
const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : dflt;
};
const baseDir = resolve(arg('--base', join(repo, 'bench/out/shape/stage/catalogs/zinc-sample-2000')));
const rows = Number(arg('--rows', '100000'));
const shardRows = Number(arg('--shard-rows', '65536'));
const peerRows = Number(arg('--peer-rows', '150'));
const formats = arg('--formats', 'csv,sdf').split(',');
const out = join(repo, 'bench/out/shape');
const catalogRoot = join(out, 'job-catalogs');
const id = `shape-job-${rows}`;
const figures: Record<string, unknown> = { catalog: id, rows, load_before: loadavg() };
if (!existsSync(join(catalogRoot, id, 'manifest.json')) || process.argv.includes('--rebuild')) {
  const t = performance.now();
  const made = await writeJobCatalog({ baseDir, root: catalogRoot, id, rows, shardRows });
  console.error(
    `built ${id} from ${made.baseRows} base rows in ${((performance.now() - t) / 1000).toFixed(1)} s`,
  );
}
const catalog = await openCatalog(join(catalogRoot, id));
figures.catalog_conformers = catalog.manifest.three_d!.counts.conformers;
figures.shards = catalog.manifest.shards.length;

// --- /proc helpers: CPU seconds and peak RSS of the service and its children ---
const stat = (pid: number) => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
const cpuOf = (pid: number) => (Number(stat(pid)[11]) + Number(stat(pid)[12])) / 100;
const children = (pid: number): number[] =>
  readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map(Number)
    .filter((p) => {
      try {
        return Number(stat(p)[1]) === pid;
      } catch {
        return false;
      }
    });
const tree = (pid: number): number[] => [pid, ...children(pid).flatMap(tree)];
const status = (pid: number) => readFileSync(`/proc/${pid}/status`, 'utf8');
const processes = (pid: number) =>
  tree(pid).map((p) => ({
    pid: p,
    name: readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0').slice(0, 2).join(' ').slice(-60),
    peakRssMb: Math.round(Number(/VmHWM:\s+(\d+)/.exec(status(p))![1]) / 1024),
    cpuS: cpuOf(p),
  }));

const env = {
  DATA_DIR: join(out, 'job-data'),
  CATALOG_DIR: catalogRoot,
  CATALOGS: id,
  BUILD_BUNDLED_CATALOGS: 'false',
  // 'start' with CATALOGS naming only the bench catalog: no 3D stage runs, but the chem3d worker starts.
  CATALOG_3D: 'start',
  CHEM3D_WORKER: 'true',
  ENGINE_THREADS: '2',
};
execFileSync('rm', ['-rf', env.DATA_DIR]);
// The object store's directory, where the job's result is read back (ports do not matter here).
const config = loadConfig(env);
const svc = await startServiceProcess(env, { timeoutMs: 600_000, echoStderr: true });
const service = svc.child;
const key = svc.key;
const base = svc.url.replace(/\/$/, '');
const call = async (method: 'GET' | 'POST', url: string) => {
  const r = await fetch(base + url, {
    method,
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: method === 'POST' ? '{}' : undefined,
  });
  const body = await r.text();
  if (r.status !== 200) throw Object.assign(new Error(`${url}: ${r.status} ${body}`), { status: r.status });
  return JSON.parse(body);
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const QUERY = 'CC(=O)Oc1ccccc1C(=O)O'; // aspirin, as the Morgan job benchmark
try {
  const sum = (xs: { cpuS: number }[]) => xs.reduce((t, x) => t + x.cpuS, 0);
  const cpu0 = processes(service.pid!);
  const t0 = performance.now();
  let job = '';
  // The chem3d worker starts beside the service: a 503 (no 3D worker polling yet) is retried.
  for (let attempt = 0; !job; attempt++) {
    try {
      job = await call(
        'GET',
        `/submit_molsearch?search_input=${encodeURIComponent(QUERY)}&search_type=espsim_shape&search_quality=very_accurate&db_names=${id}&n_neighbors=${rows}`,
      );
    } catch (err) {
      if ((err as { status?: number }).status !== 503 || attempt > 60) throw err;
      await sleep(1000);
    }
  }
  const tSubmitted = performance.now();
  for (;;) {
    const s = await call('GET', `/job_status?job_name=${job}`);
    if (s === 'SUCCESS') break;
    if (s === 'FAILURE' || s === 'REVOKED') throw new Error(`job ${s}`);
    await sleep(500);
  }
  const jobS = (performance.now() - t0) / 1000;
  const cpu1 = processes(service.pid!);
  const serviceCpu = cpu1[0].cpuS - cpu0[0].cpuS;
  figures.job = {
    submit_s: +((tSubmitted - t0) / 1000).toFixed(2),
    submit_to_success_s: +jobS.toFixed(1),
    service_cpu_s: +serviceCpu.toFixed(1),
    all_processes_cpu_s: +(sum(cpu1) - sum(cpu0)).toFixed(1),
  };
  console.error('job', JSON.stringify(figures.job));

  // --- the result file: query conformers → conformer pairs scored ---
  const resultKey = `jobs/${job}/result.arrow`;
  const objects = createLocalObjectStore(config.objectsDir);
  const result = decodeJobResult(await objects.getBytes(resultKey));
  const q = JSON.parse(result.metadata![METADATA_QUERY_3D]) as {
    atomCount: number;
    confCount: number;
    elements: string;
    coords: string;
  };
  const pairs = q.confCount * (figures.catalog_conformers as number);
  Object.assign(figures.job as object, {
    result_rows: result.rows,
    query_conformers: q.confCount,
    conformer_pairs: pairs,
    conf_pairs_per_s: Math.round(pairs / jobS),
    conf_pairs_per_service_cpu_s: Math.round(pairs / serviceCpu),
  });

  // --- paging: every row, 1000 per page, with properties ---
  const t1 = performance.now();
  const pc0 = cpuOf(service.pid!);
  const ids: string[] = [];
  const shapes: number[] = [];
  for (let p = 0; ; p++) {
    const page = await call(
      'POST',
      `/get_molsearch_page?job_name=${job}&page_size=1000&page_num=${p}&include_properties=true`,
    );
    page.id.forEach((x: string, i: number) => {
      if (x === 'Query Molecule') return;
      ids.push(x);
      shapes.push(page.Shapesim[i] as number);
    });
    if (page.id.length < 1000) break;
  }
  figures.paging = {
    s: +((performance.now() - t1) / 1000).toFixed(2),
    service_cpu_s: +(cpuOf(service.pid!) - pc0).toFixed(2),
    unique_ids: new Set(ids).size,
  };
  console.error('paging', JSON.stringify(figures.paging));
  for (const f of formats) {
    const line = execFileSync(
      process.execPath,
      [join(repo, 'bench/jobs/export-one.ts'), config.objectsDir, resultKey, f],
      {
        encoding: 'utf8',
      },
    );
    figures[`export_${f}`] = JSON.parse(line.trim().split('\n').pop()!);
    console.error(f, JSON.stringify(figures[`export_${f}`]));
  }
  figures.peak_rss = processes(service.pid!).map(({ name, peakRssMb }) => ({ name, peakRssMb }));

  // --- the peer: RDKit rdShapeAlign on a sample of the same pairs, evenly spread over the ranking ---
  const want = new Map<string, number>();
  for (let j = 0; j < peerRows; j++) {
    const i = Math.floor(((j + 0.5) * ids.length) / peerRows);
    want.set(ids[i], shapes[i]);
  }
  const sample: { id: string; ours: number; mol: object }[] = [];
  for (let s = 0; s < catalog.manifest.shards.length; s++) {
    const buf = readFileSync(catalog.shardPath(s));
    const shard = readShard(new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength), s);
    const s3 = await loadShard3d(catalog, s);
    const pid = shard.table.getChild('product_id')!;
    for (let r = 0; r < shard.rows; r++) {
      const x = pid.get(r) as string;
      if (!want.has(x)) continue;
      const m = molecule3d(s3, r)!;
      const mol = { ...m, elements: Array.from(m.elements), coords: Array.from(m.coords), charges: [] };
      sample.push({ id: x, ours: want.get(x)!, mol });
    }
  }
  const qElements = Array.from(Buffer.from(q.elements, 'base64'));
  const qb = Buffer.from(q.coords, 'base64');
  const qCoords = Array.from(new Float32Array(qb.buffer.slice(qb.byteOffset, qb.byteOffset + qb.byteLength)));
  const samplePath = join(out, 'job-peer-sample.json');
  await writeFile(
    samplePath,
    JSON.stringify({ query: { ...q, elements: qElements, coords: qCoords }, rows: sample.map((x) => x.mol) }),
  );
  const peer = JSON.parse(
    execFileSync(
      join(repo, '.tools/chem3d/bin/python'),
      [join(import.meta.dirname, 'align_peer.py'), samplePath],
      {
        encoding: 'utf8',
      },
    ),
  ) as {
    rows: number;
    conf_pairs: number;
    cpu_ms_per_conf_pair: number;
    ms_per_conf_pair: number;
    best_shape: number[];
  };
  const ours = sample.map((x) => x.ours);
  const mean = (a: number[]) => a.reduce((t, v) => t + v, 0) / a.length;
  const [mo, mr] = [mean(ours), mean(peer.best_shape)];
  const cov = ours.reduce((t, v, i) => t + (v - mo) * (peer.best_shape[i] - mr), 0);
  const sd = (a: number[], m: number) => Math.sqrt(a.reduce((t, v) => t + (v - m) ** 2, 0));
  const rdkitCpuS = (pairs * peer.cpu_ms_per_conf_pair) / 1000;
  figures.peer_rdkit = {
    sample_rows: peer.rows,
    sample_conf_pairs: peer.conf_pairs,
    ms_per_conf_pair: peer.ms_per_conf_pair,
    cpu_ms_per_conf_pair: peer.cpu_ms_per_conf_pair,
    extrapolated_cpu_s: Math.round(rdkitCpuS),
    extrapolated_wall_s_one_thread: Math.round((pairs * peer.ms_per_conf_pair) / 1000),
    pearson_ours_vs_rdkit_shape: +(cov / (sd(ours, mo) * sd(peer.best_shape, mr))).toFixed(3),
    mean_ours_minus_rdkit: +(mo - mr).toFixed(4),
  };
  const job1 = figures.job as { service_cpu_s: number; submit_to_success_s: number };
  figures.ratio = {
    // RDKit's alignment only (shape, no ESP) against the whole job (API, workflow, scans with ESP,
    // merge, result file) in CPU seconds: the figure a loaded machine distorts least.
    cpu: +(rdkitCpuS / job1.service_cpu_s).toFixed(2),
    per_pair_cpu_ms_ours: +((job1.service_cpu_s * 1000) / pairs).toFixed(3),
  };
  figures.load_after = loadavg();
} finally {
  await svc.stop();
}
await writeFile(join(out, 'job-bench.json'), JSON.stringify(figures, null, 1));
console.log(JSON.stringify(figures, null, 1));
