import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { randomBytes } from 'node:crypto';
import { taskQueue, WORKER_SHUTDOWN_FAILURE, type SynthonJobInput } from '../../workflows/contracts.ts';
import { call } from './support/stack.ts';
import { useSynthonWorkerStack } from './support/synthon-worker-stack.ts';

// Progress within slices and slices stopped by worker shutdowns (support/synthon-worker-stack.ts:
// PostgreSQL shared by the API in this process and `molsearch worker` children, the shared Temporal
// dev server, a local object store, the Idorsia toy space and the FreedomSpace sample).
const s = useSynthonWorkerStack('syn_pr', 'synthon job progress');
let connection: Connection;
let client: Client;

/** temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED */
const STARTED = 2;

/** Waits until a synthonScan of the job runs on a worker. */
async function scanRunning(job: string): Promise<void> {
  await vi.waitFor(
    async () => {
      const d = await client.workflow.getHandle(job).describe();
      const running = d.raw.pendingActivities?.filter(
        (a) => a.activityType?.name === 'synthonScan' && Number(a.state) === STARTED,
      );
      expect(running?.length).toBeGreaterThan(0);
    },
    { timeout: 120_000, interval: 100 },
  );
}

beforeAll(async () => {
  if (!s.reachable) return;
  connection = await Connection.connect({ address: s.env.TEMPORAL_ADDRESS });
  client = new Client({ connection });
});

afterAll(async () => {
  await connection?.close();
});

describe('synthon job progress and worker shutdowns', () => {
  it('job_info progress.fraction moves while the first slice is still running (shards_done still 0)', async (ctx) => {
    if (!s.reachable) ctx.skip();
    // Every product of the FreedomSpace sample has an aliphatic carbon: each slice assembles,
    // verifies and scores its ~100,000 products (all hits, under the 100,000-hit cap of
    // search_quality 10000): minutes of work per slice.
    const q = `/submit_synthongpt_job?search_input=C&db_name=chemspace_freedom_sample&search_mode=substructure&search_quality=10000`;
    const worker = await s.spawnWorker();
    const job = (await call(s.api, 'POST', q, s.api.keyA, {})).body as string;
    const info = async () => (await call(s.api, 'GET', `/job_info?job_name=${job}`, s.api.keyA)).body;
    try {
      const seen: number[] = [];
      await vi.waitFor(
        async () => {
          const p = (await info()).progress;
          if (p.fraction > 0 && p.fraction !== seen[seen.length - 1]) seen.push(p.fraction);
          expect(seen.length).toBeGreaterThanOrEqual(2);
        },
        { timeout: 240_000, interval: 500 },
      );
      const p = (await info()).progress;
      expect(await s.partsOf(job)).toBe(0);
      expect(p.shards_done).toBe(0);
      expect(p.shards_total).toBeGreaterThan(1);
      expect(p.fraction).toBeLessThan(1);
      expect(seen[1]).toBeGreaterThan(seen[0]);
    } finally {
      await client.workflow.getHandle(job).terminate('test over');
      worker.kill('SIGKILL'); // it would take the next test's slices
    }
  }, 400_000);

  it("worker shutdowns spend none of a slice's attempts: with one attempt per slice the job still completes", async (ctx) => {
    if (!s.reachable) ctx.skip();
    const job = `job_shutdowns_${randomBytes(4).toString('hex')}`;
    const prefix = s.env.TASK_QUEUE_PREFIX;
    // One slice at a time, each of ~5,000 toy-space products bounded to 6 s, and ONE attempt per
    // slice: a stop that spent an attempt would fail the job at once. (Which slice each stop hits
    // depends on timing, so the test does not ask for one slice to be stopped several times.)
    const input: SynthonJobInput = {
      jobName: job,
      space: 'idorsia_toy_space',
      mode: 'substructure',
      query: 'C', // every product a hit: each slice works until its 6 s bound
      k: 10_000,
      matchMode: 'fuzzy',
      queues: { scan: taskQueue(prefix, 'scan'), export: taskQueue(prefix, 'export') },
      concurrency: 1,
      sliceTimeoutMs: 6_000,
      sliceAttempts: 1,
    };
    const handle = await client.workflow.start('synthonJobWorkflow', {
      taskQueue: taskQueue(prefix, 'orchestration'),
      workflowId: job,
      args: [input],
    });
    const stops = 3;
    for (let n = 0; n < stops; n++) {
      // No grace: the running slice is stopped at once.
      const worker = await s.spawnWorker({ SHUTDOWN_GRACE_MS: '0' });
      await scanRunning(job);
      const exited = new Promise<number | null>((ok) => worker.once('exit', (code) => ok(code)));
      worker.kill('SIGTERM');
      expect(await exited).toBe(0);
    }
    await s.spawnWorker();
    const result = await handle.result();
    expect(result.status).toBe('SUCCESS');
    // The stops were seen as shutdowns, not failures (a stop may miss a slice that had just
    // finished, so at least one and at most one per stop).
    const events = (await handle.fetchHistory()).events ?? [];
    const sliceOf = new Map<string, number>();
    const stopped = new Map<number, number>();
    for (const e of events) {
      const s = e.activityTaskScheduledEventAttributes;
      if (s?.activityType?.name === 'synthonScan') {
        const arg = JSON.parse(new TextDecoder().decode(s.input!.payloads![0].data!)) as { index: number };
        sliceOf.set(String(e.eventId), arg.index);
      }
      const f = e.activityTaskFailedEventAttributes;
      const type = f?.failure?.applicationFailureInfo?.type;
      if (f && type && type === WORKER_SHUTDOWN_FAILURE) {
        const slice = sliceOf.get(String(f.scheduledEventId))!;
        stopped.set(slice, (stopped.get(slice) ?? 0) + 1);
      }
    }
    const total = [...stopped.values()].reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThanOrEqual(1);
    expect(total).toBeLessThanOrEqual(stops);
  }, 600_000);

  it('a structure job with more hits than its slices rank records hit_cap_reached, not timed_out', async (ctx) => {
    if (!s.reachable) ctx.skip();
    const job = `job_hitcap_${randomBytes(4).toString('hex')}`;
    const prefix = s.env.TASK_QUEUE_PREFIX;
    // Every toy-space product is a hit; each slice may rank 30 of its thousands.
    const input: SynthonJobInput = {
      jobName: job,
      space: 'idorsia_toy_space',
      mode: 'substructure',
      query: 'C',
      k: 10,
      matchMode: 'fuzzy',
      queues: { scan: taskQueue(prefix, 'scan'), export: taskQueue(prefix, 'export') },
      sliceMaxHits: 30,
    };
    const worker = await s.spawnWorker();
    try {
      const handle = await client.workflow.start('synthonJobWorkflow', {
        taskQueue: taskQueue(prefix, 'orchestration'),
        workflowId: job,
        args: [input],
      });
      expect((await handle.result()).status).toBe('SUCCESS');
      // What the workflow recorded: the jobRecord activities' inputs in its history.
      const progress = ((await handle.fetchHistory()).events ?? [])
        .map((e) => e.activityTaskScheduledEventAttributes)
        .filter((a) => a?.activityType?.name === 'jobRecord')
        .map(
          (a) => JSON.parse(new TextDecoder().decode(a!.input!.payloads![0].data!)) as { progress?: object },
        )
        .flatMap((r) => (r.progress ? [r.progress] : []));
      expect(progress.at(-1)).toMatchObject({ shardsDone: 6, shardsTotal: 6, hitCapReached: true });
      expect(progress.some((p) => 'timedOut' in p)).toBe(false);
    } finally {
      worker.kill('SIGKILL');
    }
  }, 300_000);
});
