import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildReferenceCatalog } from '../../support/fixture-catalog.ts';
import { startApiHarness, type ApiHarness } from '../../support/api-harness.ts';

let h: ApiHarness;
beforeAll(async () => {
  const { catalog } = await buildReferenceCatalog({ id: 'refcat', take: (_m, i) => i < 40 });
  h = await startApiHarness([catalog], { tierLimits: { demo: 3 }, tier: 'demo' });
});
afterAll(async () => h?.close());

describe('API keys on legacy routes', () => {
  it('answers 401 with a FastAPI-style detail for a missing, unknown or revoked key', async () => {
    const missing = await h.app.inject({ method: 'GET', url: '/available_databases' });
    expect(missing.statusCode).toBe(401);
    expect(missing.json().detail).toMatch(/missing/);
    const unknown = await h.app.inject({
      method: 'GET',
      url: '/available_databases',
      headers: { 'X-API-Key': 'ms_nope' },
    });
    expect(unknown.statusCode).toBe(401);
    const created = await h.store.accounts.createApiKey({ user: 'gone', tier: 'free' });
    await h.store.accounts.revokeApiKey(created.keyId);
    const revoked = await h.app.inject({
      method: 'GET',
      url: '/available_databases',
      headers: { 'x-api-key': created.key },
    });
    expect(revoked.statusCode).toBe(401);
    expect(revoked.json().detail).toMatch(/revoked/);
  });

  it('reads the key header case-insensitively', async () => {
    const { key } = await h.store.accounts.createApiKey({ user: 'casey', tier: 'free' });
    for (const name of ['X-API-Key', 'X-API-key', 'x-api-key']) {
      const res = await h.app.inject({ method: 'GET', url: '/rate_limit_status', headers: { [name]: key } });
      expect(res.statusCode).toBe(200);
    }
  });
});

describe('daily limits', () => {
  it('counts each request once, reports usage in both record shapes, and answers 429 with Retry-After past the limit', async () => {
    const headers = { 'X-API-Key': h.key };
    const first = (await h.app.inject({ method: 'GET', url: '/rate_limit_status', headers })).json();
    expect(first).toMatchObject({ limit: 3, used: 1, remaining: 2, account_type: 'demo' });
    expect(new Date(first.reset_at).getUTCHours()).toBe(0);
    expect(first.seconds_to_reset).toBeGreaterThan(0);
    const second = (await h.app.inject({ method: 'GET', url: '/rate-limit/status', headers })).json();
    expect(second).toMatchObject({
      plan: 'demo',
      limit: 3,
      used: 2,
      remaining: 1,
      unlimited: false,
      window: 'day',
      userId: 'tester',
    });
    expect(second.secondsToReset).toBeGreaterThan(0);
    expect((await h.app.inject({ method: 'GET', url: '/available_databases', headers })).statusCode).toBe(
      200,
    );
    const over = await h.app.inject({ method: 'GET', url: '/available_databases', headers });
    expect(over.statusCode).toBe(429);
    const retry = Number(over.headers['retry-after']);
    expect(retry).toBeGreaterThan(0);
    expect(retry).toBeLessThanOrEqual(86400);
    expect(over.json().detail).toMatch(/limit/);
    // The usage records still answer past the limit, so a client can read when its budget resets.
    const status = await h.app.inject({ method: 'GET', url: '/rate_limit_status', headers });
    expect(status.statusCode).toBe(200);
    expect(status.json()).toMatchObject({ limit: 3, used: 3, remaining: 0, account_type: 'demo' });
    const camel = await h.app.inject({ method: 'GET', url: '/rate-limit/status', headers });
    expect(camel.statusCode).toBe(200);
    expect(camel.json()).toMatchObject({ plan: 'demo', used: 3, remaining: 0 });
    expect((await h.app.inject({ method: 'GET', url: '/available_databases', headers })).statusCode).toBe(
      429,
    );
  });
});
