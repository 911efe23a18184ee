import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { writeSyntheticCatalog } from '../../testkit/synthetic-catalog.ts';
import { pgAdmin, spawnWorkerProcess } from './support/worker-process.ts';
import { call, stackEnv, startTestStack, tempDir, waitStatus, type TestStack } from './support/stack.ts';

// Fault tolerance with real processes: PostgreSQL shared by the API (in this process, no worker)
// and `molsearch worker` child processes; the shared Temporal dev server; a local object store
// directory both sides use; a synthetic catalog of 300,000 rows in 19 shards.
const adminUrl = inject('databaseUrl');
const dbName = `molsearch_jobs_ft_${process.pid}_${randomBytes(3).toString('hex')}`;
let pgReachable = true;
let env: Record<string, string>;
let dataDir: string;
let api: TestStack;
const workers: ChildProcess[] = [];

const admin = (sql: string) => pgAdmin(adminUrl, sql);
const spawnWorker = () => spawnWorkerProcess(env, workers);

async function partsOf(job: string): Promise<number> {
  try {
    return (await readdir(join(dataDir, 'objects', 'jobs', job, 'parts'))).filter((f) => f.endsWith('.bin'))
      .length;
  } catch {
    return 0;
  }
}

async function allRows(
  s: TestStack,
  key: string,
  job: string,
): Promise<{ id: string[]; similarity: number[]; smiles: string[] }> {
  const r = await call(
    s,
    'POST',
    `/get_molsearch_page?job_name=${job}&page_size=100000&page_num=0&include_properties=true`,
    key,
    {},
  );
  expect(r.status).toBe(200);
  return r.body;
}

beforeAll(async () => {
  try {
    await admin(`CREATE DATABASE ${dbName}`);
  } catch (err) {
    pgReachable = false;
    console.warn(
      `\n\u26a0\ufe0f  PostgreSQL unreachable at ${adminUrl} (${(err as Error).message}): the job fault-tolerance tests are SKIPPED.\n`,
    );
    return;
  }
  const dir = await tempDir('jobs-ft');
  dataDir = join(dir, 'data');
  const catalogDir = join(dir, 'catalogs');
  await writeSyntheticCatalog(catalogDir, 'big', 300_000, 16_384, 5);
  const url = new URL(adminUrl);
  url.pathname = `/${dbName}`;
  env = stackEnv(dataDir, catalogDir, inject('temporalAddress'), `ft-${randomBytes(4).toString('hex')}`, {
    DATABASE_URL: url.toString(),
  });
  api = await startTestStack(env, { worker: false });
}, 180_000);

afterAll(async () => {
  for (const w of workers) if (w.exitCode === null && w.signalCode === null) w.kill('SIGKILL');
  await api?.stack.stop();
  if (pgReachable) await admin(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => {});
});

describe('job fault tolerance', () => {
  it('finishes a 100K-neighbour job after its worker is SIGKILLed mid-job, equal row for row to a run whose API restarted', async (ctx) => {
    if (!pgReachable) ctx.skip();
    const q = `/submit_molsearch?search_input=${encodeURIComponent('CC(=O)Oc1ccccc1C(=O)O')}&search_type=morgan&db_names=big&n_neighbors=100000`;
    const first = await spawnWorker();
    const jobA = (await call(api, 'GET', q, api.keyA)).body as string;
    // Kill the worker as soon as the job has scanned some shards but not finished.
    const until = Date.now() + 60_000;
    while ((await partsOf(jobA)) === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 25));
    const statusAtKill = (await call(api, 'GET', `/job_status?job_name=${jobA}`, api.keyA)).body;
    first.kill('SIGKILL');
    expect(statusAtKill).toBe('STARTED');
    const partsAtKill = await partsOf(jobA);
    expect(partsAtKill).toBeGreaterThan(0);
    expect(partsAtKill).toBeLessThan(19);
    await spawnWorker();
    expect(await waitStatus(api, api.keyA, jobA, 120_000)).toBe('SUCCESS');

    // The undisturbed run: same query, a fresh worker; the API process is replaced mid-job.
    const jobB = (await call(api, 'GET', q, api.keyA)).body as string;
    while ((await call(api, 'GET', `/job_status?job_name=${jobB}`, api.keyA)).body === 'PENDING')
      await new Promise((r) => setTimeout(r, 25));
    const keys = { keyA: api.keyA, keyB: api.keyB };
    await api.stack.stop();
    api = await startTestStack(env, { worker: false, keys });
    expect(['STARTED', 'SUCCESS']).toContain(
      (await call(api, 'GET', `/job_status?job_name=${jobB}`, api.keyA)).body,
    );
    expect(await waitStatus(api, api.keyA, jobB, 120_000)).toBe('SUCCESS');

    const a = await allRows(api, api.keyA, jobA);
    const b = await allRows(api, api.keyA, jobB);
    expect(a.id).toHaveLength(100_000);
    expect(a.id).toEqual(b.id);
    expect(a.similarity).toEqual(b.similarity);
    expect(a.smiles).toEqual(b.smiles);
    expect(new Set(a.id).size).toBe(100_000);
  }, 300_000);
});
