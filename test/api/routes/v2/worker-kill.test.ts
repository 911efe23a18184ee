import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { call, startHarness, type Harness } from './harness.ts';
import { allEvents, batchDoc, checkEvents, submit, waitTerminal } from './run-helpers.ts';

// The API in this process; workers in child processes, one of which is killed with SIGKILL mid-run.
let h: Harness;
const children: ChildProcess[] = [];
beforeAll(async () => {
  h = await startHarness({ backend: 'postgres', worker: false, concurrency: 2, itemTimeoutSeconds: 4 });
}, 180_000);
afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  await h?.close();
}, 60_000);

function startWorkerProcess(extraEnv: Record<string, string> = {}): Promise<ChildProcess> {
  const child = spawn(process.execPath, [fileURLToPath(new URL('./worker-process.ts', import.meta.url))], {
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: h.temporalAddress,
      DATABASE_URL: h.databaseUrl,
      PREFIX: h.prefix,
      OBJECTS_DIR: join(h.dataDir, 'objects'),
      ...extraEnv,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => d.toString().includes('ready') && resolve(child));
    child.on('exit', (code) => reject(new Error(`worker exited with ${code} before ready`)));
  });
}

describe('a worker killed mid-run', () => {
  it('the run completes on another worker, no item lost or recorded twice', async () => {
    // The first worker completes 5 items, then its executions stop midway (see worker-process.ts).
    const first = await startWorkerProcess({ HOLD_AFTER_ITEMS: '5' });
    const holding = new Promise<void>((resolve) =>
      first.stdout!.on('data', (d: Buffer) => d.toString().includes('holding') && resolve()),
    );
    const r = await submit(h, batchDoc(60, 2), 'kill-key');
    const runId = r.body!.id;
    await holding;
    // Kill while an item is executing on that worker, so one execution is cut off mid-way.
    const running = await h.store.db.query(
      "SELECT 1 FROM run_items WHERE run_id = $1 AND status = 'running'",
      [runId],
    );
    expect(running.length).toBeGreaterThan(0);
    first.kill('SIGKILL');
    await new Promise((res) => first.once('exit', res));
    const before = (await call(h, 'GET', `/api/v2/runs/${runId}`)).body!;
    expect(before.progress.succeeded).toBeLessThan(60);
    await startWorkerProcess();
    const run = await waitTerminal(h, runId, 180_000);
    expect(run.status).toBe('completed');
    expect(run.progress).toMatchObject({ succeeded: 60, failed: 0, cancelled: 0, total: 60 });
    const events = await allEvents(h, runId);
    checkEvents(events, 60);
    const itemEvents = events.filter((e) => e.type === 'item.succeeded').map((e) => e.item_id);
    expect(new Set(itemEvents).size).toBe(60);
    expect(itemEvents).toHaveLength(60);
    const results = await call(h, 'GET', `/api/v2/runs/${runId}/results?order=input&limit=100`);
    expect(results.body!.data.map((x: { item_id: string }) => x.item_id)).toEqual(
      Array.from({ length: 60 }, (_, i) => `item-${String(i).padStart(4, '0')}`),
    );
    const items = await call(h, 'GET', `/api/v2/runs/${runId}/items?limit=100`);
    const attempts = items.body!.data.map((x: { attempt_count: number }) => x.attempt_count);
    expect(Math.min(...attempts)).toBe(1);
    expect(Math.max(...attempts)).toBeGreaterThanOrEqual(2); // the cut-off item ran again, and is still recorded once
    console.log(
      `worker kill: ${before.progress.succeeded} items done before the kill; items retried: ${attempts.filter((a: number) => a > 1).length}`,
    );
  }, 240_000);
});
