import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, selectionDoc, startHarness, type Harness } from './harness.ts';
import { allEvents, batchDoc, checkEvents, submit, waitTerminal } from './run-helpers.ts';

// Real PostgreSQL (concurrent transactions), real Temporal dev server, workers in this process.
let h: Harness;
beforeAll(async () => {
  h = await startHarness({ backend: 'postgres', worker: true, concurrency: 4 });
}, 180_000);
afterAll(() => h?.close(), 60_000);

describe('POST /api/v2/runs', () => {
  it('starts exactly one run for 50 concurrent submissions with the same key', async () => {
    const doc = batchDoc(5);
    const answers = await Promise.all(Array.from({ length: 50 }, () => submit(h, doc, 'race-key')));
    expect(answers.map((a) => a.status)).toEqual(Array(50).fill(202));
    const ids = new Set(answers.map((a) => a.body!.id));
    expect(ids.size).toBe(1);
    const [id] = ids;
    const rows = await h.store.db.query<{ n: number }>(
      "SELECT count(*) AS n FROM runs WHERE idempotency_key = 'race-key'",
    );
    expect(rows[0].n).toBe(1);
    const run = await waitTerminal(h, id);
    expect(run.status).toBe('completed');
    const events = await allEvents(h, id);
    checkEvents(events, 5);
    expect(events.filter((e) => e.type === 'item.succeeded').length).toBe(5);
  });

  it('answers 409 idempotency_conflict for the same key with another document', async () => {
    expect((await submit(h, batchDoc(2), 'conflict-key')).status).toBe(202);
    const r = await submit(h, batchDoc(3), 'conflict-key');
    expect(r.status).toBe(409);
    expect(r.body!.error).toMatchObject({ code: 'idempotency_conflict', retryable: false });
  });

  it('scopes keys to the caller', async () => {
    const a = await submit(h, batchDoc(1), 'shared-key');
    const b = await submit(h, batchDoc(1), 'shared-key', h.keys.bob);
    expect(b.status).toBe(202);
    expect(b.body!.id).not.toBe(a.body!.id);
  });

  it('requires an Idempotency-Key', async () => {
    const r = await call(h, 'POST', '/api/v2/runs', { body: batchDoc(1) });
    expect(r.status).toBe(422);
    expect(r.body!.error.message).toContain('Idempotency-Key');
  });

  it('enforces the size limits with 413 and reports them in runs:estimate', async () => {
    expect((await submit(h, batchDoc(1001, 1), 'too-many')).status).toBe(413);
    expect((await submit(h, batchDoc(2, 201), 'too-deep')).status).toBe(413);
    expect((await submit(h, batchDoc(600, 200), 'too-much')).status).toBe(413);
    const est = await call(h, 'POST', '/api/v2/runs:estimate', { body: batchDoc(600, 200) });
    expect(est.status).toBe(200);
    expect(est.body).toMatchObject({ admissible: false, work: { items: 600, total_hits: 120_000 } });
    const ok = await call(h, 'POST', '/api/v2/runs:estimate', { body: batchDoc(10, 5) });
    expect(ok.body).toMatchObject({
      admissible: true,
      work: { items: 10, hits_per_item: 5, total_hits: 50 },
    });
  });

  it('refuses a price bound on a catalog without prices at admission, naming constraints.price', async () => {
    const t = batchDoc(2);
    const priced = {
      ...t,
      selection_template: {
        ...t.selection_template,
        constraints: { price: { max: 100, missing: 'reject' } },
      },
    };
    const r = await submit(h, priced, 'unpriced-bound');
    expect(r.status).toBe(422);
    expect(r.body!.error).toMatchObject({
      code: 'capability_unavailable',
      message: expect.stringContaining('$.constraints.price: drugs lists no prices'),
    });
  });

  it('rejects unknown fields of the run document and of the template with their path', async () => {
    const r = await submit(h, { ...batchDoc(1), colour: 1 }, 'bad-doc');
    expect(r.status).toBe(422);
    expect(r.body!.error.details[0].path).toBe('$.colour');
    const t = batchDoc(1);
    const r2 = await submit(
      h,
      { ...t, selection_template: { ...t.selection_template, portfolio: { limit: 3, extra: 1 } } },
      'bad-doc-2',
    );
    expect(r2.status).toBe(422);
    expect(r2.body!.error.details[0].path).toBe('$.selection_template.portfolio.extra');
  });
});

describe('a completed run', () => {
  let id: string;
  beforeAll(async () => {
    // Item 4's reference does not parse: admitted as an item that fails (failure_policy continue).
    // A run admitted by an older release may still hold an unparsable reference the worker meets
    // first; such a stored run is made here too (workers stopped, item 7 edited before any item runs).
    await h.stopWorkers();
    const doc = batchDoc(12, 3);
    doc.items[4].references[0].structure.value = 'C1CC(';
    const r = await submit(h, doc, 'complete-key');
    await h.store.db.query(
      `UPDATE runs SET document = jsonb_set(document, '{items,7,references,0,structure,value}', '"C1CC("') WHERE id = $1`,
      [r.body!.id],
    );
    await h.startWorkers();
    expect(r.body).toMatchObject({
      object: 'run',
      schema_version: 'run/1',
      kind: 'selection_batch',
      status: 'queued',
      last_event_sequence: 0,
      metadata: { purpose: 'test' },
    });
    expect(r.body!.progress).toEqual({
      pending: 12,
      running: 0,
      succeeded: 0,
      failed: 0,
      cancelled: 0,
      total: 12,
    });
    expect(new Date(r.body!.expires_at).getTime() - new Date(r.body!.created_at).getTime()).toBe(
      7 * 86_400_000,
    );
    id = r.body!.id;
    await waitTerminal(h, id);
  }, 120_000);

  it('ends completed_with_errors with consistent progress, events and last_event_sequence', async () => {
    const run = (await call(h, 'GET', `/api/v2/runs/${id}`)).body!;
    expect(run.status).toBe('completed_with_errors');
    expect(run.progress).toEqual({
      pending: 0,
      running: 0,
      succeeded: 10,
      failed: 2,
      cancelled: 0,
      total: 12,
    });
    const events = await allEvents(h, id);
    checkEvents(events, 12);
    expect(run.last_event_sequence).toBe(events[events.length - 1].sequence);
    expect(events[events.length - 1]).toMatchObject({
      type: 'run.completed_with_errors',
      status: 'completed_with_errors',
    });
    const failedEvents = events.filter((e) => e.type === 'item.failed');
    expect(failedEvents.map((e) => e.item_id).sort()).toEqual(['item-0004', 'item-0007']);
    for (const e of failedEvents)
      expect((e as { payload?: { error?: { code: string } } }).payload?.error?.code).toBe('invalid_smiles');
    expect(events.filter((e) => e.type === 'item.succeeded')).toHaveLength(10);
  });

  it('serves an ETag and answers 304 to If-None-Match', async () => {
    const a = await call(h, 'GET', `/api/v2/runs/${id}`);
    const b = await call(h, 'GET', `/api/v2/runs/${id}`, {
      headers: { 'if-none-match': String(a.headers.etag) },
    });
    expect(b.status).toBe(304);
  });

  it('pages items in input order with status and attempts, and filters by status', async () => {
    const p1 = await call(h, 'GET', `/api/v2/runs/${id}/items?limit=5`);
    const p2 = await call(h, 'GET', `/api/v2/runs/${id}/items?limit=50&cursor=${p1.body!.next_cursor}`);
    const items = [...p1.body!.data, ...p2.body!.data];
    expect(items.map((i) => i.input_index)).toEqual([...Array(12).keys()]);
    expect(p2.body!.next_cursor).toBeNull();
    for (const [index, name] of [
      [4, 'item-0004'],
      [7, 'item-0007'],
    ] as const) {
      expect(items[index]).toMatchObject({ id: name, status: 'failed', result: null });
      expect(items[index].error.code).toBe('invalid_smiles');
      // The message names the item, the field as written in the run document, the value and why.
      expect(items[index].error.message).toContain(`item "${name}"`);
      expect(items[index].error.message).toContain(`$.items[${index}].references[0].structure.value`);
      expect(items[index].error.message).toContain('"C1CC("');
      expect(items[index].error.message).toContain('unparsable SMILES');
    }
    expect(items[0]).toMatchObject({ status: 'succeeded', attempt_count: 1, error: null });
    // A succeeded item's result is its search answer: hits inside `result`, as the SDK reads them.
    expect(items[0].result).toMatchObject({
      database_id: 'drugs',
      scorer: 'morgan',
      metric: 'rdkit.ecfp4_tanimoto',
      returned: 3,
      counts: { returned: 3 },
    });
    expect(items[0].result.results.map((r: { rank: number }) => r.rank)).toEqual([1, 2, 3]);
    expect(items[0].result.results[0]).toMatchObject({ product_id: 'CHEMBL25', score: 1 });
    expect(items[0].result.selection_hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(typeof items[0].result.timing_ms.total).toBe('number');
    expect(Array.isArray(items[0].result.warnings)).toBe(true);
    expect(items[0].result.run_id).toBeUndefined();
    const failed = await call(h, 'GET', `/api/v2/runs/${id}/items?status_filter=failed`);
    expect(failed.body!.data.map((i: { id: string }) => i.id)).toEqual(['item-0004', 'item-0007']);
  });

  it('pages results by completion and by input order', async () => {
    const byInput = await call(h, 'GET', `/api/v2/runs/${id}/results?order=input&limit=100`);
    expect(byInput.body!.data.map((r: { input_index: number }) => r.input_index)).toEqual([
      0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
    ]);
    expect(byInput.body!.data[0]).toMatchObject({
      id: 'item-0000',
      item_id: 'item-0000',
      status: 'succeeded',
    });
    // The failed item is in the results too, with its error and no hits.
    expect(byInput.body!.data[4]).toMatchObject({
      id: 'item-0004',
      status: 'failed',
      error: { code: 'invalid_smiles' },
    });
    expect(byInput.body!.data[4].results).toBeUndefined();
    expect(byInput.body!.data[4].result).toBeNull();
    expect(byInput.body!.data[4].error.message).toContain('item "item-0004"');
    // The hits are in the item's result (the SDK's SearchResult) and, as before, beside it.
    const first = byInput.body!.data[0];
    expect(first.result.results).toHaveLength(3);
    expect(first.result.results[0]).toMatchObject({ rank: 1, product_id: 'CHEMBL25', score: 1 });
    expect(first.result).toMatchObject({ database_id: 'drugs', scorer: 'morgan', counts: { returned: 3 } });
    expect(first.results).toEqual(first.result.results);
    expect(first.selection_hash).toBe(first.result.selection_hash);
    const seen: number[] = [];
    let cursor: string | null = null;
    do {
      const page = await call(
        h,
        'GET',
        `/api/v2/runs/${id}/results?order=completion&limit=4${cursor ? `&cursor=${cursor}` : ''}`,
      );
      seen.push(...page.body!.data.map((r: { completion_sequence: number }) => r.completion_sequence));
      cursor = page.body!.next_cursor;
    } while (cursor);
    expect(seen).toHaveLength(12);
    expect([...seen].sort((a, b) => a - b)).toEqual(seen);
  });

  it('pages events by following next_cursor as well as by after', async () => {
    const all = await allEvents(h, id);
    const seen: number[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 50; pages++) {
      const page = await call(
        h,
        'GET',
        `/api/v2/runs/${id}/events?limit=4${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(page.status).toBe(200);
      seen.push(...page.body!.data.map((e: { sequence: number }) => e.sequence));
      cursor = page.body!.next_cursor;
      if (!cursor) break;
    }
    expect(seen).toEqual(all.map((e) => e.sequence));
  });

  it('is invisible to another tenant', async () => {
    for (const path of ['', '/items', '/results', '/events'])
      expect((await call(h, 'GET', `/api/v2/runs/${id}${path}`, { key: h.keys.bob })).status).toBe(404);
    expect((await call(h, 'POST', `/api/v2/runs/${id}:cancel`, { key: h.keys.bob })).status).toBe(404);
    const list = await call(h, 'GET', '/api/v2/runs', { key: h.keys.bob });
    expect(list.body!.data.map((r: { id: string }) => r.id)).not.toContain(id);
  });

  it('lists runs newest first with cursor and status_filter', async () => {
    const all: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await call(h, 'GET', `/api/v2/runs?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      all.push(...page.body!.data.map((r: { id: string }) => r.id));
      cursor = page.body!.next_cursor;
    } while (cursor);
    expect(new Set(all).size).toBe(all.length);
    expect(all).toContain(id);
    const filtered = await call(h, 'GET', '/api/v2/runs?status_filter=completed_with_errors');
    expect(filtered.body!.data.map((r: { id: string }) => r.id)).toEqual([id]);
  });

  it('answers 404 once the retention has passed', async () => {
    await h.store.db.query("UPDATE runs SET expires_at = now() - interval '1 second' WHERE id = $1", [id]);
    expect((await call(h, 'GET', `/api/v2/runs/${id}`)).status).toBe(404);
  });
});

describe('a batch whose items do not parse', () => {
  it('estimates the failing items, and 413/422 checks still apply to the rest', async () => {
    const doc = batchDoc(3, 4);
    doc.items[1].references[0].structure.value = 'C1CC(';
    const est = await call(h, 'POST', '/api/v2/runs:estimate', { body: doc });
    expect(est.status).toBe(200);
    expect(est.body).toMatchObject({
      admissible: true,
      work: { items: 3, hits_per_item: 4, total_hits: 8, failing_items: 1 },
    });
    expect(est.body!.item_errors).toHaveLength(1);
    expect(est.body!.item_errors[0]).toMatchObject({ id: 'item-0001', error: { code: 'invalid_smiles' } });
  });

  it('keeps a template error the document’s 422, whatever the items hold', async () => {
    const doc = batchDoc(2, 3);
    doc.items[0].references[0].structure.value = 'C1CC(';
    const bad = {
      ...doc,
      selection_template: {
        ...doc.selection_template,
        constraints: {
          structures: { all: [{ id: 's', query: { format: 'smarts', value: '[C' }, relation: 'contains' }] },
        },
      },
    };
    const r = await submit(h, bad, 'template-bad');
    expect(r.status).toBe(422);
    expect(r.body!.error.details[0].path).toBe(
      '$.selection_template.constraints.structures.all[0].query.value',
    );
  });

  it('admits a run whose every item is bad; it ends failed, each item failed with its error', async () => {
    const doc = batchDoc(3, 2);
    for (const item of doc.items) item.references[0].structure.value = 'not a molecule';
    const r = await submit(h, doc, 'all-bad');
    expect(r.status).toBe(202);
    const run = await waitTerminal(h, r.body!.id);
    expect(run.status).toBe('failed');
    expect(run.progress).toEqual({ pending: 0, running: 0, succeeded: 0, failed: 3, cancelled: 0, total: 3 });
    const events = await allEvents(h, r.body!.id);
    checkEvents(events, 3);
    expect(events.map((e) => e.type)).toEqual([
      'run.started',
      'item.failed',
      'item.failed',
      'item.failed',
      'run.failed',
    ]);
    const items = (await call(h, 'GET', `/api/v2/runs/${r.body!.id}/items`)).body!.data;
    expect(items.map((i: { status: string }) => i.status)).toEqual(['failed', 'failed', 'failed']);
    for (const [k, i] of items.entries()) {
      expect(i.error.code).toBe('invalid_smiles');
      expect(i.error.message).toContain(`item "item-000${k}"`);
    }
    const results = (await call(h, 'GET', `/api/v2/runs/${r.body!.id}/results?order=input`)).body!.data;
    expect(results.map((i: { id: string; status: string }) => [i.id, i.status])).toEqual([
      ['item-0000', 'failed'],
      ['item-0001', 'failed'],
      ['item-0002', 'failed'],
    ]);
  });
});

describe('cancellation', () => {
  it('cancels a running run: unfinished items cancelled, a final run.cancelled event', async () => {
    const r = await submit(h, batchDoc(300, 2), 'cancel-key');
    const id = r.body!.id;
    for (let i = 0; ; i++) {
      const e = await call(h, 'GET', `/api/v2/runs/${id}/events?after=0`);
      if (e.body!.data.filter((x: { type: string }) => x.type === 'item.succeeded').length >= 3) break;
      if (i > 600) throw new Error('run made no progress');
      await new Promise((res) => setTimeout(res, 100));
    }
    const c = await call(h, 'POST', `/api/v2/runs/${id}:cancel`);
    expect(c.body).toMatchObject({ id });
    expect(c.status).toBe(202);
    const run = await waitTerminal(h, id);
    expect(run.status).toBe('cancelled');
    expect(run.progress.cancelled).toBeGreaterThan(0);
    expect(run.progress.pending + run.progress.running).toBe(0);
    const events = await allEvents(h, id);
    checkEvents(events, 300);
    expect(events[events.length - 1].type).toBe('run.cancelled');
    const items = await call(h, 'GET', `/api/v2/runs/${id}/items?status_filter=cancelled&limit=1000`);
    expect(items.body!.data.length).toBe(run.progress.cancelled);
    expect((await call(h, 'POST', `/api/v2/runs/${id}:cancel`)).status).toBe(200);
  }, 120_000);
});

describe('a selection run', () => {
  it('runs kind selection as one item', async () => {
    const r = await submit(
      h,
      { schema_version: 'run/1', kind: 'selection', selection: selectionDoc('CC(=O)Oc1ccccc1C(=O)O', 4) },
      'single-key',
    );
    expect(r.status).toBe(202);
    const run = await waitTerminal(h, r.body!.id);
    expect(run).toMatchObject({ status: 'completed', progress: { succeeded: 1, total: 1 } });
    const res = await call(h, 'GET', `/api/v2/runs/${r.body!.id}/results`);
    expect(res.body!.data[0]).toMatchObject({ item_id: 'selection', counts: { returned: 4 } });
  });
});
