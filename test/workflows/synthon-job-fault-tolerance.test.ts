import { describe, expect, it, vi } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { call, waitStatus } from './support/stack.ts';
import { useSynthonWorkerStack } from './support/synthon-worker-stack.ts';

// A synthon job survives its worker (support/synthon-worker-stack.ts: PostgreSQL shared by the API
// in this process and `molsearch worker` children, the shared Temporal dev server, a local object
// store, the Idorsia toy space (6 reactions, 29,200 products) and the FreedomSpace sample).
const s = useSynthonWorkerStack('syn_ft', 'synthon job fault-tolerance');
/** temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED */
const STARTED = 2;

describe('synthon job fault tolerance', () => {
  it('a substructure job whose worker is SIGKILLed mid-job completes with the same results as an undisturbed run', async (ctx) => {
    if (!s.reachable) ctx.skip();
    // Every product has an aliphatic carbon: each slice assembles, verifies and scores its ~5,000
    // products (seconds per slice), and the job keeps the 1,000 most similar to methane.
    const q = `/submit_synthongpt_job?search_input=C&db_name=idorsia_toy_space&search_mode=substructure&search_quality=1000`;
    const first = await s.spawnWorker();
    const ref = (await call(s.api, 'POST', q, s.api.keyA, {})).body as string;
    expect(await waitStatus(s.api, s.api.keyA, ref, 240_000)).toBe('SUCCESS');

    const job = (await call(s.api, 'POST', q, s.api.keyA, {})).body as string;
    // Kill the worker once the job has scanned a slice but not all six.
    const until = Date.now() + 120_000;
    while ((await s.partsOf(job)) === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 25));
    const statusAtKill = (await call(s.api, 'GET', `/job_status?job_name=${job}`, s.api.keyA)).body;
    first.kill('SIGKILL');
    const partsAtKill = await s.partsOf(job);
    expect(statusAtKill).toBe('STARTED');
    expect(partsAtKill).toBeGreaterThan(0);
    expect(partsAtKill).toBeLessThan(6);
    await s.spawnWorker();
    expect(await waitStatus(s.api, s.api.keyA, job, 240_000)).toBe('SUCCESS');

    const page = async (name: string) =>
      (
        await call(
          s.api,
          'POST',
          `/get_molsearch_page?job_name=${name}&page_size=100000&page_num=0&include_synthons=true`,
          s.api.keyA,
          {},
        )
      ).body;
    const [a, b] = [await page(ref), await page(job)];
    expect(a.smiles).toHaveLength(1000);
    expect(b.id).toEqual(a.id);
    expect(b.smiles).toEqual(a.smiles);
    expect(b.similarity).toEqual(a.similarity);
    expect(b.synthons).toEqual(a.synthons);
    const info = (await call(s.api, 'GET', `/job_info?job_name=${job}`, s.api.keyA)).body;
    expect(info.progress).toEqual({ shards_done: 6, shards_total: 6, fraction: 1 });
  }, 600_000);

  it('a worker told to stop mid synthon job (SIGTERM) stops its running slices instead of finishing them, and exits', async (ctx) => {
    if (!s.reachable) ctx.skip();
    // Every product of the FreedomSpace sample has an aliphatic carbon: each slice assembles,
    // verifies and scores its ~100,000 products (all hits, under the 100,000-hit cap of
    // search_quality 10000): minutes of work per slice.
    const q = `/submit_synthongpt_job?search_input=C&db_name=chemspace_freedom_sample&search_mode=substructure&search_quality=10000`;
    // No grace: running activities are cancelled at once, so only stopping the engine work ends them.
    const worker = await s.spawnWorker({ SHUTDOWN_GRACE_MS: '0' });
    const job = (await call(s.api, 'POST', q, s.api.keyA, {})).body as string;
    const connection = await Connection.connect({ address: s.env.TEMPORAL_ADDRESS });
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
      const partsAtStop = await s.partsOf(job);
      const t0 = Date.now();
      const exited = new Promise<number | null>((ok) => worker.once('exit', (code) => ok(code)));
      worker.kill('SIGTERM');
      expect(await exited).toBe(0);
      // Within the forced-stop backstop (grace + 60 s) only if the slices really stopped.
      expect(Date.now() - t0).toBeLessThan(45_000);
      expect(await s.partsOf(job)).toBe(partsAtStop);
      expect((await call(s.api, 'GET', `/job_status?job_name=${job}`, s.api.keyA)).body).toBe('STARTED');
      await handle.terminate('test over');
    } finally {
      await connection.close();
    }
  }, 300_000);
});
