import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { createLocalObjectStore, type ObjectStore } from '../../platform/object-store/index.ts';
import { RUN_PURGE_SCHEDULE } from '../../workflows/contracts.ts';
import { ensureRunPurgeSchedule } from '../../worker/schedules.ts';
import { call, selectionDoc, startHarness, type Harness } from '../api/routes/v2/harness.ts';
import { submit, waitTerminal } from '../api/routes/v2/run-helpers.ts';

// Real Temporal dev server (its schedules), real PGlite, workers in this process.
let h: Harness;
let connection: Connection;
let client: Client;
let objects: ObjectStore;
beforeAll(async () => {
  h = await startHarness({ worker: true });
  connection = await Connection.connect({ address: h.temporalAddress });
  client = new Client({ connection });
  objects = createLocalObjectStore(join(h.dataDir, 'objects'));
}, 180_000);
afterAll(async () => {
  await client?.schedule
    .getHandle(RUN_PURGE_SCHEDULE.id(h.prefix))
    .delete()
    .catch(() => undefined);
  await connection?.close();
  await h?.close();
}, 60_000);

const runExists = async (id: string) =>
  (await h.store.db.query('SELECT 1 FROM runs WHERE id = $1', [id])).length > 0;

async function finishedRun(key: string): Promise<string> {
  const r = await submit(
    h,
    { schema_version: 'run/1', kind: 'selection', selection: selectionDoc('CC(=O)Oc1ccccc1C(=O)O', 3) },
    key,
  );
  expect(r.status).toBe(202);
  expect((await waitTerminal(h, r.body!.id)).status).toBe('completed');
  return r.body!.id;
}

describe('retention of v2 runs', () => {
  it('the workers create one hourly purge schedule per deployment, and creating it again changes nothing', async () => {
    const id = RUN_PURGE_SCHEDULE.id(h.prefix);
    const before = await client.schedule.getHandle(id).describe();
    expect(before.spec.intervals).toMatchObject([{ every: 3_600_000 }]);
    expect(before.action).toMatchObject({ type: 'startWorkflow', workflowType: 'purgeExpiredRunsWorkflow' });
    expect(before.policies.overlap).toBe('SKIP');
    await expect(
      ensureRunPurgeSchedule({ address: h.temporalAddress, namespace: 'default', prefix: h.prefix }),
    ).resolves.toBe(id);
    expect((await client.schedule.getHandle(id).describe()).info.createdAt).toEqual(before.info.createdAt);
  });

  it('a triggered purge deletes expired runs with their stored results and keeps the others', async () => {
    const expired = await finishedRun('purge-expired');
    const kept = await finishedRun('purge-kept');
    expect(await objects.list(`runs/${expired}/`)).not.toEqual([]);
    await h.store.db.query("UPDATE runs SET expires_at = now() - interval '1 second' WHERE id = $1", [
      expired,
    ]);
    await client.schedule.getHandle(RUN_PURGE_SCHEDULE.id(h.prefix)).trigger();
    for (const until = Date.now() + 60_000; await runExists(expired);) {
      if (Date.now() > until) throw new Error('the purge did not run');
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(await objects.list(`runs/${expired}/`)).toEqual([]);
    expect(await runExists(kept)).toBe(true);
    expect(await objects.list(`runs/${kept}/`)).not.toEqual([]);
    expect((await call(h, 'GET', `/api/v2/runs/${kept}/results`)).body!.data).toHaveLength(1);
  });
});
