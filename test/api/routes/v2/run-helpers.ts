import { expect } from 'vitest';
import { call, selectionDoc, type Harness } from './harness.ts';

export const TERMINAL = ['completed', 'completed_with_errors', 'failed', 'cancelled'];
const QUERIES = [
  'CC(=O)Oc1ccccc1C(=O)O',
  'Cn1c(=O)c2c(ncn2C)n(C)c1=O',
  'CC(C)Cc1ccc(C(C)C(=O)O)cc1',
  'CN1CCC[C@H]1c1cccnc1',
  'OC(=O)c1ccccc1O',
];

/** A selection_batch document of `n` items (each a different reference), `limit` hits per item. */
export function batchDoc(n: number, limit = 3, extra: Record<string, unknown> = {}) {
  const template = selectionDoc(QUERIES[0], limit);
  const { references: _drop, ...rest } = template;
  return {
    schema_version: 'run/1',
    kind: 'selection_batch',
    selection_template: rest,
    items: Array.from({ length: n }, (_, i) => ({
      id: `item-${String(i).padStart(4, '0')}`,
      references: [{ id: 'q', structure: { format: 'smiles', value: QUERIES[i % QUERIES.length] } }],
    })),
    failure_policy: 'continue',
    metadata: { purpose: 'test' },
    ...extra,
  };
}

export async function submit(h: Harness, doc: unknown, key: string, apiKey?: string) {
  return call(h, 'POST', '/api/v2/runs', { body: doc, headers: { 'idempotency-key': key }, key: apiKey });
}

/** Polls GET /runs/{id} until the run is terminal. */
export async function waitTerminal(h: Harness, id: string, timeoutMs = 120_000) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const r = await call(h, 'GET', `/api/v2/runs/${id}`);
    expect(r.status).toBe(200);
    if (TERMINAL.includes(r.body!.status)) return r.body!;
    if (Date.now() > end)
      throw new Error(`run ${id} not terminal after ${timeoutMs} ms: ${JSON.stringify(r.body)}`);
    await new Promise((res) => setTimeout(res, 200));
  }
}

/** Every event of a run through GET .../events pages. */
export async function allEvents(h: Harness, id: string) {
  const out: { sequence: number; type: string; item_id: string | null; progress: Record<string, number> }[] =
    [];
  let after = 0;
  for (;;) {
    const r = await call(h, 'GET', `/api/v2/runs/${id}/events?after=${after}&limit=500`);
    expect(r.status).toBe(200);
    out.push(...r.body!.data);
    if (!r.body!.data.length) return out;
    after = out[out.length - 1].sequence;
  }
}

/** Checks the event stream invariants: consecutive sequences, progress sums to total, one terminal event at the end. */
export function checkEvents(events: Awaited<ReturnType<typeof allEvents>>, total: number) {
  expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i + 1));
  for (const e of events) {
    const p = e.progress;
    expect(p.pending + p.running + p.succeeded + p.failed + p.cancelled).toBe(total);
    expect(p.total).toBe(total);
  }
  expect(events[0].type).toBe('run.started');
  expect(events.filter((e) => e.type.startsWith('run.') && e.type !== 'run.started').length).toBe(1);
  expect(events[events.length - 1].type).toMatch(/^run\./);
}
