import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, readdirSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildReferenceCatalog } from '../support/fixture-catalog.ts';
import { startServiceProcess, type ServiceProcess } from '../../testkit/service-process.ts';
import { freePort } from '../../testkit/ports.ts';
import { processAlive } from '../../platform/process-lock.ts';

/**
 * Crash recovery of the embedded stack (issue 15, part 6): the service is killed with SIGKILL
 * right after a job was submitted; its Temporal dev server child survives it. The next start on
 * the same data directory and port stops that orphan and starts its own Temporal on the same
 * SQLite file: the job finishes with SUCCESS, and after the second stop no process of this data
 * directory is left.
 */
let catalogDir: string;
let dataDir: string;
let smiles: string;
let temporalPort: number;
const services: ServiceProcess[] = [];

beforeAll(async () => {
  const built = await buildReferenceCatalog({ id: 'crashcat', take: (_m, i) => i < 60 });
  catalogDir = built.dir;
  smiles = built.reference.molecules[7].input;
  dataDir = await mkdtemp(join(tmpdir(), 'crash-data-'));
  temporalPort = await freePort();
});
afterAll(async () => {
  for (const s of services) if (s.child.exitCode === null) s.child.kill('SIGKILL');
  for (const pid of processesOf(dataDir)) process.kill(pid, 'SIGKILL');
});

const start = async () => {
  const s = await startServiceProcess({
    DATA_DIR: dataDir,
    CATALOG_DIR: catalogDir,
    BUILD_BUNDLED_CATALOGS: 'false',
    TEMPORAL_PORT: String(temporalPort), // the same port across restarts, as a user's install
  });
  services.push(s);
  return s;
};

/** Pids of processes whose command line names `dir` (the Temporal child's --db-filename does). */
function processesOf(dir: string): number[] {
  const pids: number[] = [];
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      if (readFileSync(`/proc/${e}/cmdline`, 'utf8').includes(dir)) pids.push(Number(e));
    } catch {
      /* exited meanwhile */
    }
  }
  return pids;
}
const temporalPid = () =>
  (JSON.parse(readFileSync(join(dataDir, 'temporal.pid'), 'utf8')) as { pid: number }).pid;

async function jobStatus(s: ServiceProcess, job: string): Promise<string> {
  const res = await fetch(`${s.url}/job_status?job_name=${job}`, { headers: { 'X-API-Key': s.key } });
  return (await res.json()) as string;
}

describe('SIGKILL of the service mid-job', () => {
  let job = '';
  let orphan = 0;

  it('leaves its Temporal child running (what the next start must deal with)', async () => {
    const first = await start();
    const q = new URLSearchParams({
      search_input: smiles,
      search_type: 'morgan',
      db_names: 'crashcat',
      n_neighbors: '20',
    });
    const res = await fetch(`${first.url}/submit_molsearch?${q}`, { headers: { 'X-API-Key': first.key } });
    expect(res.status).toBe(200);
    job = (await res.json()) as string;
    orphan = temporalPid();
    first.child.kill('SIGKILL');
    await new Promise((r) => first.child.once('exit', r));
    expect(processAlive(orphan)).toBe(true);
  }, 120_000);

  it('the next start stops the orphan, runs its own Temporal, and the job finishes', async () => {
    const second = await start();
    expect(processAlive(orphan)).toBe(false);
    const own = temporalPid();
    expect(own).not.toBe(orphan);
    const deadline = Date.now() + 60_000;
    let status = await jobStatus(second, job);
    while (status !== 'SUCCESS' && status !== 'FAILURE' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 300));
      status = await jobStatus(second, job);
    }
    expect(status).toBe('SUCCESS');
    const page = await fetch(`${second.url}/get_molsearch_page?job_name=${job}&page_num=0&page_size=5`, {
      method: 'POST',
      headers: { 'X-API-Key': second.key, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(page.status).toBe(200);
    expect(((await page.json()) as { smiles: string[] }).smiles).toHaveLength(5);

    expect(await second.stop()).toBe(0);
    expect(processAlive(own)).toBe(false);
    expect(processesOf(dataDir)).toEqual([]);
  }, 180_000);
});
