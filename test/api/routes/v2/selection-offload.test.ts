import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executeSelection, libraryFacts, normalizeSelection } from '../../../../engine/selection/index.ts';
import { call, selectionDoc, startHarness, type Harness } from './harness.ts';
import { batchDoc, submit, waitTerminal } from './run-helpers.ts';

// The API with its selection pool (as bin/stack.ts composes it), real Temporal and PGlite.
let h: Harness;
beforeAll(async () => {
  h = await startHarness({ worker: true });
}, 180_000);
afterAll(() => h?.close(), 60_000);

const ASPIRIN = 'CC(=O)Oc1ccccc1C(=O)O';
/**
 * A heavy selection on the drugs fixture: every molecule has a carbon, so the `none` condition
 * rejects every candidate and RDKit parses the whole shortlist (all masked rows).
 */
const heavy = () =>
  selectionDoc(ASPIRIN, 200, {
    constraints: {
      properties: [{ property_id: 'molecular_weight', operator: 'lte', value: 900 }],
      structures: { none: [{ id: 'carbon', query: { format: 'smarts', value: '[#6]' } }] },
    },
    execution: { shortlist_multiplier: 20 },
  });

/** Runs `work` while a 5 ms interval measures the largest gap between ticks of this event loop. */
async function measureLoop<T>(work: () => Promise<T>): Promise<{ value: T; ms: number; maxGapMs: number }> {
  let last = performance.now();
  let maxGapMs = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    maxGapMs = Math.max(maxGapMs, now - last);
    last = now;
  }, 5);
  const t0 = performance.now();
  try {
    const value = await work();
    const ms = performance.now() - t0;
    await new Promise((r) => setTimeout(r, 20)); // let a tick delayed by the last synchronous stretch land
    return { value, ms, maxGapMs };
  } finally {
    clearInterval(timer);
  }
}

describe('sync selections off the event loop', () => {
  it('keeps the API event loop responsive during a heavy synchronous selection, with the in-thread outcome', async () => {
    await call(h, 'POST', '/api/v2/selections', { body: selectionDoc(ASPIRIN, 5) }); // thread start, library and RDKit load
    const api = await measureLoop(() => call(h, 'POST', '/api/v2/selections', { body: heavy() }));
    expect(api.value.status).toBe(200);
    expect(api.value.body!.counts.exact_evaluated).toBeGreaterThan(1000);
    // The same selection on this thread blocks it for about its whole duration: the probe can fail.
    const sel = normalizeSelection(heavy(), libraryFacts(h.lib));
    const local = await measureLoop(() => executeSelection(h.lib, sel));
    expect(local.maxGapMs).toBeGreaterThan(local.ms * 0.5);
    expect(api.value.body!.counts).toEqual(local.value.counts);
    expect(api.ms).toBeGreaterThan(150);
    expect(api.maxGapMs).toBeLessThan(api.ms / 4);
  }, 60_000);

  it('serves other requests while a heavy selection runs', async () => {
    const slow = call(h, 'POST', '/api/v2/selections', { body: heavy() });
    const t0 = performance.now();
    const quick = await call(h, 'GET', '/api/v2/catalog');
    const quickMs = performance.now() - t0;
    const done = await slow;
    const slowMs = performance.now() - t0;
    expect([quick.status, done.status]).toEqual([200, 200]);
    expect(quickMs).toBeLessThan(slowMs / 2);
  }, 60_000);

  it('answers shortlists up to 10,000 synchronously and 413 pointing to runs above', async () => {
    const est = await call(h, 'POST', '/api/v2/selections:estimate', {
      body: selectionDoc(ASPIRIN, 200, { execution: { shortlist_multiplier: 50 } }),
    });
    expect(est.body).toMatchObject({ execution_tier: 'synchronous', work: { shortlist: 10_000 } });
    const ok = await call(h, 'POST', '/api/v2/selections', {
      body: selectionDoc(ASPIRIN, 200, { execution: { shortlist_multiplier: 50 } }),
    });
    expect(ok.status).toBe(200);
    expect(ok.body!.results.length).toBe(200);
    const big = await call(h, 'POST', '/api/v2/selections', {
      body: selectionDoc(ASPIRIN, 200, { execution: { shortlist_multiplier: 51 } }),
    });
    expect(big.status).toBe(413);
    expect(big.body!.error).toMatchObject({
      code: 'payload_too_large',
      message: expect.stringContaining('POST /api/v2/runs'),
    });
  }, 60_000);

  it('executes run items on the selection pool', async () => {
    const before = h.selectionPool!.stats().executed;
    const r = await submit(h, batchDoc(3), 'offload-run');
    expect(r.status).toBe(202);
    const run = await waitTerminal(h, r.body!.id);
    expect(run.status).toBe('completed');
    expect(h.selectionPool!.stats().executed - before).toBeGreaterThanOrEqual(3);
  }, 120_000);
});
