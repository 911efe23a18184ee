import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import type { ChildProcess } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { writeSyntheticCatalog } from '../../testkit/synthetic-catalog.ts';
import { buildTestSpaces } from './support/spaces.ts';
import { pgAdmin, spawnWorkerProcess } from './support/worker-process.ts';
import { call, stackEnv, startTestStack, tempDir, waitStatus, type TestStack } from './support/stack.ts';

// A synthon job survives its worker: PostgreSQL shared by the API (in this process, no worker)
// and `molsearch worker` child processes; the shared Temporal dev server; a local object store
// and the Idorsia toy space (6 reactions, 29,200 products) in one data directory both sides use.
const adminUrl = inject('databaseUrl');
const dbName = `molsearch_syn_ft_${process.pid}_${randomBytes(3).toString('hex')}`;
let pgReachable = true;
let env: Record<string, string>;
let dataDir: string;
let api: TestStack;
const workers: ChildProcess[] = [];

/** temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED */
const STARTED = 2;
const admin = (sql: string) => pgAdmin(adminUrl, sql);
const spawnWorker = (extra: Record<string, string> = {}) => spawnWorkerProcess({ ...env, ...extra }, workers);

async function partsOf(job: string): Promise<number> {
  try {
    return (await readdir(join(dataDir, 'objects', 'jobs', job, 'parts'))).length;
  } catch {
    return 0;
  }
}

beforeAll(async () => {
  try {
    await admin(`CREATE DATABASE ${dbName}`);
  } catch (err) {
    pgReachable = false;
    console.warn(
      `\n\u26a0\ufe0f  PostgreSQL unreachable at ${adminUrl} (${(err as Error).message}): the synthon job fault-tolerance test is SKIPPED.\n`,
    );
    return;
  }
  const dir = await tempDir('synthon-ft');
  dataDir = join(dir, 'data');
  const catalogDir = join(dir, 'catalogs');
  await writeSyntheticCatalog(catalogDir, 'small', 1_000, 1_000);
  await buildTestSpaces(dataDir, ['idorsia_toy_space', 'chemspace_freedom_sample']);
  const url = new URL(adminUrl);
  url.pathname = `/${dbName}`;
  env = stackEnv(dataDir, catalogDir, inject('temporalAddress'), `sft-${randomBytes(4).toString('hex')}`, {
    DATABASE_URL: url.toString(),
  });
  api = await startTestStack(env, { worker: false });
}, 300_000);

afterAll(async () => {
  for (const w of workers) if (w.exitCode === null && w.signalCode === null) w.kill('SIGKILL');
  await api?.stack.stop();
  if (pgReachable) await admin(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => {});
});

describe('synthon job fault tolerance', () => {
  it('a superstructure job whose worker is SIGKILLed mid-job completes with the same results as an undisturbed run', async (ctx) => {
    if (!pgReachable) ctx.skip();
    // Superstructure of a 24-atom product: the ~2,900 tuples of at most 24 heavy atoms are
    // assembled and matched (seconds per slice on a loaded machine), the rest pruned by size.
    const query = 'O=C(NCc1ccsc1NC(=O)c1nccnc1F)NC1COC1';
    const q = `/submit_synthongpt_job?search_input=${encodeURIComponent(query)}&db_name=idorsia_toy_space&search_mode=superstructure`;
    const first = await spawnWorker();
    const ref = (await call(api, 'POST', q, api.keyA, {})).body as string;
    expect(await waitStatus(api, api.keyA, ref, 240_000)).toBe('SUCCESS');

    const job = (await call(api, 'POST', q, api.keyA, {})).body as string;
    // Kill the worker once the job has scanned a slice but not all six.
    const until = Date.now() + 120_000;
    while ((await partsOf(job)) === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 25));
    const statusAtKill = (await call(api, 'GET', `/job_status?job_name=${job}`, api.keyA)).body;
    first.kill('SIGKILL');
    const partsAtKill = await partsOf(job);
    expect(statusAtKill).toBe('STARTED');
    expect(partsAtKill).toBeGreaterThan(0);
    expect(partsAtKill).toBeLessThan(6);
    await spawnWorker();
    expect(await waitStatus(api, api.keyA, job, 240_000)).toBe('SUCCESS');

    const page = async (name: string) =>
      (
        await call(
          api,
          'POST',
          `/get_molsearch_page?job_name=${name}&page_size=100000&page_num=0&include_synthons=true`,
          api.keyA,
          {},
        )
      ).body;
    const [a, b] = [await page(ref), await page(job)];
    expect(a.smiles).toContain(query);
    expect(b.id).toEqual(a.id);
    expect(b.smiles).toEqual(a.smiles);
    expect(b.similarity).toEqual(a.similarity);
    expect(b.synthons).toEqual(a.synthons);
    const info = (await call(api, 'GET', `/job_info?job_name=${job}`, api.keyA)).body;
    expect(info.progress).toEqual({ shards_done: 6, shards_total: 6, fraction: 1 });
  }, 600_000);

  it('a worker told to stop mid synthon job (SIGTERM) stops its running slices instead of finishing them, and exits', async (ctx) => {
    if (!pgReachable) ctx.skip();
    // Selenium is in no synthon of the FreedomSpace sample, so every one of its ~100,000 products
    // per slice is assembled and matched in vain: minutes of work per slice, never a hit.
    const q = `/submit_synthongpt_job?search_input=${encodeURIComponent('[Se]')}&db_name=chemspace_freedom_sample&search_mode=substructure`;
    // No grace: running activities are cancelled at once, so only stopping the engine work ends them.
    const worker = await spawnWorker({ SHUTDOWN_GRACE_MS: '0' });
    const job = (await call(api, 'POST', q, api.keyA, {})).body as string;
    const connection = await Connection.connect({ address: env.TEMPORAL_ADDRESS });
    try {
      const handle = new Client({ connection }).workflow.getHandle(job);
      await vi.waitFor(
        async () => {
          const d = await handle.describe();
          const running = d.raw.pendingActivities?.filter(
            (a) => a.activityType?.name === 'synthonScan' && Number(a.state) === STARTED,
          );
          expect(running?.length).toBeGreaterThan(0);
        },
        { timeout: 120_000, interval: 200 },
      );
      const partsAtStop = await partsOf(job);
      const t0 = Date.now();
      const exited = new Promise<number | null>((ok) => worker.once('exit', (code) => ok(code)));
      worker.kill('SIGTERM');
      expect(await exited).toBe(0);
      // Within the forced-stop backstop (grace + 60 s) only if the slices really stopped.
      expect(Date.now() - t0).toBeLessThan(45_000);
      expect(await partsOf(job)).toBe(partsAtStop);
      expect((await call(api, 'GET', `/job_status?job_name=${job}`, api.keyA)).body).toBe('STARTED');
      await handle.terminate('test over');
    } finally {
      await connection.close();
    }
  }, 300_000);
});
