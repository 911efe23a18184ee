/**
 * Legacy-jobs benchmark: a 100K-neighbour job over an 800k catalog from submit to SUCCESS, paging
 * all 100K rows with page_size 1000, and the export time and peak memory of each format.
 *
 *   node bench/jobs/run.ts [--catalog-dir DIR --catalog ID] [--formats csv,json,xlsx,sdf]
 *
 * Without --catalog-dir it builds (once, cached in bench/out/jobs-catalog) a synthetic catalog of
 * 800,000 rows in the real format (random fingerprints; job mechanics do not depend on chemistry).
 * Runs the whole stack in this process: embedded Temporal dev server, PGlite, local object store,
 * worker; exports run one per child process so peak memory is per format.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, rm, symlink } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { loadConfig } from '../../platform/config.ts';
import { createLogger } from '../../platform/logger.ts';
import { startStack } from '../../bin/stack.ts';
import { listCatalogs } from '../../engine/catalog/index.ts';
import { freePort } from '../../test/support/ports.ts';
import { writeSyntheticCatalog } from '../../test/workflows/support/synthetic-catalog.ts';

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
const config = loadConfig({
  DATA_DIR: dataDir,
  CATALOG_DIR: resolve(catalogDir),
  CATALOGS: catalogId ?? '',
  PORT: '0',
  TEMPORAL_PORT: String(await freePort()),
  TEMPORAL_UI_PORT: String(await freePort()),
  LOG_LEVEL: 'warn',
  ENGINE_THREADS: '2',
});
const log = createLogger({ level: 'warn', pretty: false });
const stack = await startStack(config, log, { listen: false, ensureCatalogs: false });
const key = (await stack.store.accounts.createApiKey({ user: 'bench', tier: 'enterprise' })).key;
const call = async (method: 'GET' | 'POST', url: string) => {
  const r = await stack.app.inject({
    method,
    url,
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    payload: method === 'POST' ? '{}' : undefined,
  });
  if (r.statusCode !== 200) throw new Error(`${url}: ${r.statusCode} ${r.body}`);
  return JSON.parse(r.body);
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const figures: Record<string, unknown> = {
  catalog: catalogId,
  rows: stack.catalogs.find((c) => c.manifest.id === catalogId)?.manifest.counts.molecules,
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
  const cpu1 = process.cpuUsage();
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
  const cpu = process.cpuUsage(cpu1); // this process: API, client parse and the idle in-process worker
  figures.paging_cpu_s = +((cpu.user + cpu.system) / 1e6).toFixed(2);
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
  await stack.stop();
}
console.log(JSON.stringify(figures, null, 1));
