import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startHarness, type Harness } from './harness.ts';

/**
 * Issue 15, part 2, through HTTP: three expensive SMARTS with `timeout_seconds: 3` do not stall a
 * trivial query with `timeout_seconds: 0.5` (answered in time, complete), nor the 422 of an
 * invalid SMARTS (validated before any queue); a deadline covers the whole request.
 */
let h: Harness;
// A 46-atom chain of heavy atoms: 2 of the 1,203 drugs match, and proving that the others do not
// is an exhaustive search (about 1.2 s for a cold scan; ~0.25 s once warm and indexed on an idle
// 2-core machine, so the deadline tests use 0.05 s, five times below the fastest whole scan).
const SLOW = Array(46).fill('[!#1]').join('~');
const sub = (value: string, timeout_seconds: number, limit = 200) =>
  call(h, 'POST', '/api/v2/search_substructure', {
    body: { query: { format: 'smarts', value }, database_id: 'drugs', limit, timeout_seconds },
  });

beforeAll(async () => {
  h = await startHarness();
  // Warm both threads (RDKit, the library and its index), as in a service that has been running.
  await Promise.all([sub(SLOW, 60), sub(SLOW, 60)]);
}, 180_000);
afterAll(() => h?.close());

describe('substructure deadlines and lanes', () => {
  it('answers a trivial query and an invalid SMARTS at once while three expensive ones run', async () => {
    const slow = [0, 1, 2].map(() => sub(SLOW, 3));
    await new Promise((r) => setTimeout(r, 200));
    let t0 = Date.now();
    const trivial = await sub('[#6]=[#8]', 0.5, 10);
    const trivialMs = Date.now() - t0;
    expect(trivial.status).toBe(200);
    expect(trivial.body!.timed_out).toBe(false);
    expect(trivial.body!.results).toHaveLength(10);
    expect(trivialMs).toBeLessThan(1000); // behind three 1.2 s scans (3.6 s) before the fix

    t0 = Date.now();
    const invalid = await sub('C1CC[', 3);
    expect(invalid.status).toBe(422);
    expect(JSON.stringify(invalid.body)).toMatch(/query/);
    expect(Date.now() - t0).toBeLessThan(1000);
    for (const r of await Promise.all(slow)) expect(r.status).toBe(200);
  }, 60_000);

  it('stops at the deadline with partial results and says so', async () => {
    const t0 = Date.now();
    const r = await sub(SLOW, 0.05);
    expect(Date.now() - t0).toBeLessThan(800);
    expect(r.body).toMatchObject({ timed_out: true });
    expect(r.status).toBe(200);
    expect(r.body!.timed_out).toBe(true);
    expect(r.body!.coverage_fraction).toBeLessThan(1);
    expect(r.body!.warnings[0]).toMatchObject({ code: 'timed_out' });
    // It names the deadline, not the assembly bound it did not reach.
    expect(r.body!.warnings[0].message).toMatch(/^stopped at the 0.05 s deadline/);
  }, 60_000);
});
