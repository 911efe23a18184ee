// Memory a deployment needs per catalog size: starts `molsearch start` on the given catalogs,
// reads the service's RSS when idle, then after every per-catalog structure is built (a similarity
// search, a seeded sample, a selection-backed v2 search, and a full substructure scan on each
// substructure thread, which indexes every row), and reports both with the molecule count.
//   node bench/soak/footprint.ts --catalogs wuxi_galaxi [--catalog-dir data/catalogs]
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { freePort } from '../../testkit/ports.ts';

const { values } = parseArgs({
  options: {
    'catalog-dir': { type: 'string', default: 'data/catalogs' },
    catalogs: { type: 'string' },
  },
});
const dataDir = await mkdtemp(join(tmpdir(), 'bench-footprint-'));
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
const H = { 'X-API-Key': key };
const J = { 'x-api-key': key, 'content-type': 'application/json' };
const rssMb = () =>
  Math.round(Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))![1]) / 1024);
const settle = () => new Promise((r) => setTimeout(r, 10_000));

const dbs = (await (await fetch(`${base}/available_databases`, { headers: H })).json()) as Record<
  string,
  { number_of_molecules: number }
>;
await settle();
const idle = rssMb();
const post = (path: string, body: unknown) =>
  fetch(base + path, { method: 'POST', headers: J, body: JSON.stringify(body) }).then((r) => r.text());
for (const db of Object.keys(dbs)) {
  await fetch(`${base}/molsearch?search_input=CCO&search_type=morgan&n_neighbors=10&db_names=${db}`, {
    headers: H,
  }).then((r) => r.text());
  await post('/api/v2/search', { query_smiles: 'CCO', database_id: db, limit: 10 });
  await post('/api/v2/sample', { database_id: db, count: 10, seed: 1 });
  // `[U]` matches nothing here: every row is read and indexed, on both threads at once.
  const scan = { query: { format: 'smarts', value: '[U]' }, database_id: db, limit: 1, timeout_seconds: 60 };
  await Promise.all([post('/api/v2/search_substructure', scan), post('/api/v2/search_substructure', scan)]);
}
await settle();
const warm = rssMb();
console.log(
  JSON.stringify({
    catalogs: Object.keys(dbs),
    molecules: Object.values(dbs).reduce((s, d) => s + d.number_of_molecules, 0),
    rss_mb_idle: idle,
    rss_mb_all_structures_built: warm,
  }),
);
child.kill('SIGTERM');
await new Promise((r) => child.once('exit', r));
