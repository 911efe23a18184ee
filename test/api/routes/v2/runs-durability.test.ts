import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startHarness, type Harness } from './harness.ts';
import { allEvents, batchDoc, checkEvents, submit, waitTerminal } from './run-helpers.ts';
import { consumeRunEvents } from './sse-consumer.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ backend: 'postgres', worker: true, concurrency: 8 });
  await h.listen();
}, 180_000);
afterAll(() => h?.close(), 60_000);

describe('run durability', () => {
  it('an SSE consumer resuming from its last sequence across an API restart sees every event exactly once', async () => {
    const r = await submit(h, batchDoc(150, 2), 'restart-key');
    const runId = r.body!.id;
    let restarted = false;
    const { events, connections } = await consumeRunEvents({
      url: () => h.url,
      runId,
      apiKey: h.keys.alice,
      onEvent: async (_e, all) => {
        if (!restarted && all.length === 20) {
          restarted = true;
          await h.restartApp(); // the stream is cut; the consumer reconnects with Last-Event-ID
        }
      },
    });
    expect(restarted).toBe(true);
    expect(connections).toBeGreaterThanOrEqual(2);
    expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i + 1));
    const stored = await allEvents(h, runId);
    expect(events.map((e) => e.data.sequence)).toEqual(stored.map((e) => e.sequence));
    checkEvents(stored, 150);
    const run = (await call(h, 'GET', `/api/v2/runs/${runId}`)).body!;
    expect(run.last_event_sequence).toBe(events[events.length - 1].id);
  }, 180_000);

  it('runs 1000 items to completion with every result stored once', async () => {
    const t0 = Date.now();
    const r = await submit(
      h,
      batchDoc(1000, 1, {
        selection_template: { ...batchDoc(1).selection_template, execution: { shortlist_multiplier: 2 } },
      }),
      'thousand-key',
    );
    expect(r.status).toBe(202);
    const run = await waitTerminal(h, r.body!.id, 600_000);
    const seconds = (Date.now() - t0) / 1000;
    console.log(`1000-item run: ${seconds.toFixed(1)} s end to end`);
    expect(run.status).toBe('completed');
    expect(run.progress).toEqual({
      pending: 0,
      running: 0,
      succeeded: 1000,
      failed: 0,
      cancelled: 0,
      total: 1000,
    });
    const events = await allEvents(h, r.body!.id);
    checkEvents(events, 1000);
    expect(events).toHaveLength(1002);
    const ids: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await call(
        h,
        'GET',
        `/api/v2/runs/${r.body!.id}/results?order=input&limit=100${cursor ? `&cursor=${cursor}` : ''}`,
      );
      ids.push(...page.body!.data.map((x: { item_id: string }) => x.item_id));
      cursor = page.body!.next_cursor;
    } while (cursor);
    expect(ids).toEqual(Array.from({ length: 1000 }, (_, i) => `item-${String(i).padStart(4, '0')}`));
  }, 600_000);
});
