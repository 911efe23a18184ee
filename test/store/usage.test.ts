import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TIER_LIMITS } from '../../platform/config.ts';
import { openStore, type Store } from '../../store/index.ts';
import { nextUtcMidnight, utcDay } from '../../store/usage.ts';
import { BACKENDS, type TestTarget } from './backends.ts';

const TIER_LIMITS = { ...DEFAULT_TIER_LIMITS, tiny: 30, closed: 0 };
const range = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

describe('UTC day arithmetic', () => {
  it('takes the UTC calendar day and the next UTC midnight', () => {
    const t = new Date('2026-06-15T23:30:00-02:00'); // 01:30 UTC on the 16th
    expect(utcDay(t)).toBe('2026-06-16');
    expect(nextUtcMidnight(t)).toEqual(new Date('2026-06-17T00:00:00Z'));
    expect(nextUtcMidnight(new Date('2026-12-31T00:00:00Z'))).toEqual(new Date('2027-01-01T00:00:00Z'));
  });
});

describe.each(BACKENDS)('daily usage on $title', (backend) => {
  if (!backend.available) {
    it.skip(`every usage test (${backend.title})`, () => {});
    return;
  }
  let target: TestTarget;
  let store: Store;
  /** On PostgreSQL a second pool on the same database, like a second API process. */
  let other: Store;
  let n = 0;
  const account = async (tier = 'premium') =>
    (await store.accounts.createApiKey({ user: `u${++n}`, tier })).accountId;

  beforeAll(async () => {
    target = await backend.open();
    store = await openStore({ ...target, tierLimits: TIER_LIMITS });
    other = backend.name === 'postgres' ? await openStore({ ...target, tierLimits: TIER_LIMITS }) : store;
  });
  afterAll(async () => {
    if (other !== store) await other?.close();
    await store?.close();
    await target?.dispose();
  });

  const stored = async (accountId: string, day: string) =>
    (
      await store.db.query<{ count: number }>(
        'SELECT count FROM usage_daily WHERE account_id = $1 AND day = $2::date',
        [accountId, day],
      )
    )[0]?.count;

  it('counts 50 concurrent requests exactly once each: 1..50', async () => {
    const id = await account('premium');
    const now = new Date('2026-04-01T10:00:00Z');
    const results = await Promise.all(
      range(50).map((i) => (i % 2 ? store : other).accounts.consumeRequest(id, 'premium', now)),
    );
    expect(results.every((r) => r.allowed)).toBe(true);
    expect(results.map((r) => r.used).sort((a, b) => a - b)).toEqual(range(50));
    expect(results.map((r) => r.remaining).sort((a, b) => b - a)).toEqual(range(50).map((u) => 50_000 - u));
    expect(await stored(id, '2026-04-01')).toBe(50);
  });

  it('stops at the limit under concurrency: rejected requests are not counted', async () => {
    const id = await account('tiny');
    const now = new Date('2026-04-02T10:00:00Z');
    const results = await Promise.all(
      range(50).map((i) => (i % 2 ? store : other).accounts.consumeRequest(id, 'tiny', now)),
    );
    const allowed = results.filter((r) => r.allowed);
    const refused = results.filter((r) => !r.allowed);
    expect(allowed.map((r) => r.used).sort((a, b) => a - b)).toEqual(range(30));
    expect(refused).toHaveLength(20);
    for (const r of refused) expect(r).toMatchObject({ allowed: false, limit: 30, used: 30, remaining: 0 });
    expect(await stored(id, '2026-04-02')).toBe(30);
    expect(await store.accounts.consumeRequest(id, 'tiny', now)).toMatchObject({ allowed: false, used: 30 });
    expect(await store.accounts.usageStatus(id, 'tiny', now)).toMatchObject({
      allowed: false,
      limit: 30,
      used: 30,
      remaining: 0,
    });
    expect(await stored(id, '2026-04-02')).toBe(30);
  });

  it('starts a new count at 00:00 UTC', async () => {
    const id = await account('tiny');
    const before = new Date('2026-04-03T23:59:59.500Z');
    for (let i = 0; i < 30; i++) await store.accounts.consumeRequest(id, 'tiny', before);
    const last = await store.accounts.consumeRequest(id, 'tiny', before);
    expect(last).toMatchObject({
      allowed: false,
      used: 30,
      secondsToReset: 1,
      resetAt: new Date('2026-04-04T00:00:00Z'),
    });
    const midnight = new Date('2026-04-04T00:00:00.000Z');
    expect(await store.accounts.consumeRequest(id, 'tiny', midnight)).toMatchObject({
      allowed: true,
      used: 1,
      remaining: 29,
      secondsToReset: 86_400,
      resetAt: new Date('2026-04-05T00:00:00Z'),
    });
    expect(await store.accounts.usageStatus(id, 'tiny', before)).toMatchObject({ used: 30, remaining: 0 });
    expect(await stored(id, '2026-04-04')).toBe(1);
  });

  it('reports seconds to the next UTC midnight, rounded up', async () => {
    const id = await account('free');
    const now = new Date('2026-06-15T12:34:56.789Z');
    const r = await store.accounts.consumeRequest(id, 'free', now);
    expect(r.resetAt).toEqual(new Date('2026-06-16T00:00:00Z'));
    expect(r.secondsToReset).toBe(41_104); // 11:25:03.211 to go
    expect(r).toMatchObject({ limit: 1_000, used: 1, remaining: 999 });
  });

  it('reads usage without counting', async () => {
    const id = await account('free');
    const now = new Date('2026-06-20T08:00:00Z');
    expect(await store.accounts.usageStatus(id, 'free', now)).toMatchObject({
      allowed: true,
      used: 0,
      remaining: 1_000,
    });
    await store.accounts.consumeRequest(id, 'free', now);
    await store.accounts.usageStatus(id, 'free', now);
    expect(await store.accounts.usageStatus(id, 'free', now)).toMatchObject({ used: 1, remaining: 999 });
  });

  it('refuses every request of a tier whose limit is zero without storing a count', async () => {
    const id = await account('closed');
    const now = new Date('2026-06-21T08:00:00Z');
    expect(await store.accounts.consumeRequest(id, 'closed', now)).toMatchObject({
      allowed: false,
      limit: 0,
      used: 0,
      remaining: 0,
    });
    expect(await stored(id, '2026-06-21')).toBeUndefined();
  });

  it('refuses a tier missing from the configuration with a forbidden error', async () => {
    const id = await account('free');
    await expect(store.accounts.consumeRequest(id, 'gold')).rejects.toMatchObject({
      code: 'forbidden',
      message: expect.stringContaining('gold'),
    });
  });
});
