/**
 * Legacy-jobs benchmark: a 100K-neighbour job over an 800k catalog from submit to SUCCESS, paging
 * all 100K rows with page_size 1000, and the export time and peak memory of each format.
 *
 *   node bench/jobs/run.ts [--catalog-dir DIR --catalog ID] [--formats csv,json,xlsx,sdf]
 *
 * Without --catalog-dir it builds (once, cached in bench/out/jobs-catalog) a synthetic catalog of
 * 800,000 rows in the real format (random fingerprints; job mechanics do not depend on chemistry).
 * Runs the service as deployed (`node bin/molsearch.ts start` in a child process: embedded Temporal
 * dev server, PGlite, local object store, in-process worker) and talks to it over HTTP; exports
 * run one per child process so peak memory is per format.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, rm, symlink } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { loadConfig } from '../../platform/config.ts';
import { listCatalogs } from '../../engine/catalog/index.ts';
import { freePort } from '../../testkit/ports.ts';
import { writeSyntheticCatalog } from '../../testkit/synthetic-catalog.ts';

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const root = resolve(import.meta.dirname, '..', 'out');
let catalogDir = arg('--catalog-dir');
let catalogId = arg('--catalog');
if (!catalogDir) {
  catalogDir = join(root, 'jobs-catalog');
  catalogId = 'synthetic-800k';
  if (!existsSync(join(catalogDir, catalogId, 'manifest.json'))) {
    const t = performance.now();
    await writeSyntheticCatalog(catalogDir, catalogId, 800_000, 65_536, 42);
    console.error(`built synthetic catalog in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  }
}
// Workers open a catalog as CATALOG_DIR/<id>; a catalog stored under another directory name
// (bench/out/catalog-1000000 holds bench-1000000) is linked in under its id.
if (catalogId && !existsSync(join(catalogDir, catalogId, 'manifest.json'))) {
  const found = (await listCatalogs(resolve(catalogDir))).find((c) => c.manifest.id === catalogId);
  if (!found) throw new Error(`no catalog ${catalogId} under ${catalogDir}`);
  const links = join(root, 'jobs-catalog-links');
  await rm(links, { recursive: true, force: true });
  await mkdir(links, { recursive: true });
  await symlink(found.dir, join(links, catalogId), 'dir');
  catalogDir = links;
}
const formats = (arg('--formats') ?? 'csv,json,xlsx,sdf').split(',');
const dataDir = join(root, 'jobs-data');
await rm(dataDir, { recursive: true, force: true });
const env = {
  DATA_DIR: dataDir,
  CATALOG_DIR: resolve(catalogDir),
  CATALOGS: catalogId ?? '',
  BUILD_BUNDLED_CATALOGS: 'false',
  PORT: String(await freePort()),
  TEMPORAL_PORT: String(await freePort()),
  TEMPORAL_UI_PORT: String(await freePort()),
  LOG_LEVEL: 'warn',
  ENGINE_THREADS: '2',
};
const config = loadConfig(env);
const service = spawn(process.execPath, [resolve(import.meta.dirname, '../../bin/molsearch.ts'), 'start'], {
  env: { ...process.env, ...env },
  stdio: ['ignore', 'pipe', 'inherit'],
});
let out = '';
service.stdout!.on('data', (d) => (out += d));
while (!/development key:\s+(\S+)/.test(out)) {
  if (service.exitCode !== null) throw new Error(`service exited: ${out}`);
  await new Promise((r) => setTimeout(r, 200));
}
const key = /development key:\s+(\S+)/.exec(out)![1];
const base = `http://127.0.0.1:${env.PORT}`;
const call = async (method: 'GET' | 'POST', url: string) => {
  const r = await fetch(base + url, {
    method,
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: method === 'POST' ? '{}' : undefined,
  });
  const body = await r.text();
  if (r.status !== 200) throw new Error(`${url}: ${r.status} ${body}`);
  return JSON.parse(body);
};
/** CPU seconds (user + system) the service process has used so far (Linux /proc). */
const serviceCpu = () => {
  const f = readFileSync(`/proc/${service.pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const databases = await call('GET', '/available_databases');
const figures: Record<string, unknown> = {
  catalog: catalogId,
  rows: catalogId ? databases[catalogId]?.number_of_molecules : undefined,
};
try {
  const submitJob = async () => {
    const t0 = performance.now();
    const job: string = await call(
      'GET',
      `/submit_molsearch?search_input=${encodeURIComponent('CC(=O)Oc1ccccc1C(=O)O')}&search_type=morgan&db_names=${catalogId}&n_neighbors=100000`,
    );
    for (;;) {
      const s = await call('GET', `/job_status?job_name=${job}`);
      if (s === 'SUCCESS') break;
      if (s === 'FAILURE' || s === 'REVOKED') throw new Error(`job ${s}`);
      await sleep(50);
    }
    return { job, s: (performance.now() - t0) / 1000 };
  };
  const cold = await submitJob(); // first job: shards read from disk, RDKit loaded in the worker
  const warm = await submitJob(); // shards cached in the worker
  figures.job_cold_s = +cold.s.toFixed(2);
  figures.job_warm_s = +warm.s.toFixed(2);
  const t1 = performance.now();
  const cpu1 = serviceCpu();
  const ids = new Set<string>();
  for (let p = 0; ; p++) {
    const page = await call(
      'POST',
      `/get_molsearch_page?job_name=${warm.job}&page_size=1000&page_num=${p}&include_properties=true`,
    );
    for (const id of page.id) ids.add(id);
    if (page.id.length < 1000) break;
  }
  figures.paging_100_pages_s = +((performance.now() - t1) / 1000).toFixed(2);
  // The service process: API and the idle in-process worker (the client's JSON parsing is not counted).
  figures.paging_cpu_s = +(serviceCpu() - cpu1).toFixed(2);
  figures.paged_unique_ids = ids.size;
  console.error(JSON.stringify(figures));
  const resultKey = `jobs/${warm.job}/result.arrow`;
  for (const f of formats) {
    const out = execFileSync(
      process.execPath,
      [resolve(import.meta.dirname, 'export-one.ts'), config.objectsDir, resultKey, f],
      { encoding: 'utf8' },
    );
    figures[`export_${f}`] = JSON.parse(out.trim().split('\n').pop()!);
    console.error(f, JSON.stringify(figures[`export_${f}`]));
  }
} finally {
  service.kill('SIGTERM');
  await new Promise((r) => service.once('exit', r));
}
console.log(JSON.stringify(figures, null, 1));
