import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TIER_LIMITS } from '../../platform/config.ts';
import { DomainError } from '../../platform/errors.ts';
import { openStore, type Store } from '../../store/index.ts';
import { BACKENDS, type TestTarget } from './backends.ts';

const TIER_LIMITS = { ...DEFAULT_TIER_LIMITS, tiny: 30, closed: 0 };
const HOUR = 3_600_000;

describe.each(BACKENDS)('accounts on $title', (backend) => {
  if (!backend.available) {
    it.skip(`every accounts test (${backend.title})`, () => {});
    return;
  }
  let target: TestTarget;
  let store: Store;
  /** A second store on the same database: on PostgreSQL a separate pool, like another API process. */
  let other: Store;

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

  it('creates a key that authenticates as its user and tier', async () => {
    const created = await store.accounts.createApiKey({ user: 'alice', tier: 'premium' });
    expect(created.key).toMatch(/^ms_[A-Za-z0-9_-]{43}$/);
    expect(created.prefix).toBe(created.key.slice(0, 8));
    expect(created).toMatchObject({ user: 'alice', tier: 'premium', expiresAt: null });
    const auth = await store.accounts.authenticate(created.key);
    expect(auth).toEqual({
      ok: true,
      account: { id: created.accountId, user: 'alice', tier: 'premium', keyId: created.keyId },
    });
  });

  it('rejects an unknown tier with a message listing the tiers', async () => {
    const err = await store.accounts.createApiKey({ user: 'bob', tier: 'platinum' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).code).toBe('validation_error');
    expect((err as DomainError).message).toContain(
      'unknown tier "platinum"; expected one of: free, academia, premium, ultra, enterprise, demo',
    );
    expect(await store.accounts.listKeys('bob')).toEqual([]);
  });

  it('rejects an empty or malformed user name', async () => {
    for (const user of ['', ' alice', 'a b', 'x'.repeat(200)]) {
      await expect(store.accounts.createApiKey({ user, tier: 'free' })).rejects.toMatchObject({
        code: 'validation_error',
      });
    }
  });

  it('keeps one account per user and records a differing tier as the key override', async () => {
    const first = await store.accounts.createApiKey({ user: 'carol', tier: 'academia' });
    const second = await store.accounts.createApiKey({ user: 'carol', tier: 'ultra' });
    expect(second.accountId).toBe(first.accountId);
    expect(second.keyId).not.toBe(first.keyId);
    expect(await store.accounts.authenticate(first.key)).toMatchObject({
      ok: true,
      account: { tier: 'academia' },
    });
    expect(await store.accounts.authenticate(second.key)).toMatchObject({
      ok: true,
      account: { tier: 'ultra' },
    });
    const keys = await store.accounts.listKeys('carol');
    expect(keys.map((k) => [k.keyId, k.tier, k.status])).toEqual([
      [first.keyId, 'academia', 'active'],
      [second.keyId, 'ultra', 'active'],
    ]);
  });

  it('answers missing or unknown for absent and malformed keys without throwing', async () => {
    for (const key of [undefined, null, '', '   '])
      expect(await store.accounts.authenticate(key)).toEqual({ ok: false, reason: 'missing' });
    const wellFormedButUnknown = 'ms_' + 'A'.repeat(43);
    const odd = [
      'nope',
      'ms_',
      wellFormedButUnknown,
      'x'.repeat(100_000),
      "ms_' OR 1=1 --",
      '\u0000\u{1F600}',
    ];
    for (const key of odd)
      expect(await store.accounts.authenticate(key)).toEqual({ ok: false, reason: 'unknown' });
    expect(await store.accounts.authenticate(['a', 'b'] as unknown as string)).toEqual({
      ok: false,
      reason: 'unknown',
    });
  });

  it('refuses a key from its expiry on', async () => {
    const now = new Date();
    const created = await store.accounts.createApiKey({
      user: 'dave',
      tier: 'free',
      expiresAt: new Date(now.getTime() + HOUR),
    });
    expect(created.expiresAt).toEqual(new Date(now.getTime() + HOUR));
    expect((await store.accounts.authenticate(created.key, now)).ok).toBe(true);
    expect(await store.accounts.authenticate(created.key, new Date(now.getTime() + HOUR))).toEqual({
      ok: false,
      reason: 'expired',
    });
    expect((await store.accounts.listKeys('dave', new Date(now.getTime() + 2 * HOUR)))[0].status).toBe(
      'expired',
    );
  });

  it('refuses a revoked key, by id or by prefix, and keeps the first revocation time', async () => {
    const a = await store.accounts.createApiKey({ user: 'erin', tier: 'free' });
    const b = await store.accounts.createApiKey({ user: 'erin', tier: 'free' });
    const t1 = new Date('2026-01-01T00:00:00Z');
    const info = await store.accounts.revokeApiKey(a.keyId, t1);
    expect(info).toMatchObject({ keyId: a.keyId, user: 'erin', status: 'revoked', revokedAt: t1 });
    expect(await store.accounts.authenticate(a.key)).toEqual({ ok: false, reason: 'revoked' });
    expect((await store.accounts.revokeApiKey(a.keyId, new Date('2026-02-01T00:00:00Z'))).revokedAt).toEqual(
      t1,
    );
    await store.accounts.revokeApiKey(b.prefix);
    expect(await store.accounts.authenticate(b.key)).toEqual({ ok: false, reason: 'revoked' });
    await expect(store.accounts.revokeApiKey('key_doesnotexist')).rejects.toMatchObject({
      code: 'not_found',
    });
  });

  it('stores only the SHA-256 of a key: no table holds the key or its secret part', async () => {
    const created = await store.accounts.createApiKey({ user: 'frank', tier: 'demo' });
    await store.accounts.authenticate(created.key);
    const [row] = await store.db.query<{ key_hash: string; prefix: string }>(
      'SELECT key_hash, prefix FROM api_keys WHERE id = $1',
      [created.keyId],
    );
    expect(row.key_hash).toBe(createHash('sha256').update(created.key).digest('hex'));
    expect(row.prefix).toBe(created.key.slice(0, 8));
    const tables = await store.db.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`,
    );
    expect(tables.length).toBeGreaterThanOrEqual(11);
    const secret = created.key.slice(8);
    for (const { table_name } of tables) {
      const rows = await store.db.query<{ j: string }>(
        `SELECT row_to_json(x)::text AS j FROM "${table_name}" x`,
      );
      for (const r of rows) {
        expect(r.j).not.toContain(created.key);
        expect(r.j).not.toContain(secret);
      }
    }
  });

  it('records when a key was last used', async () => {
    const created = await store.accounts.createApiKey({ user: 'gina', tier: 'free' });
    const when = new Date('2030-05-05T05:05:05Z');
    await store.accounts.authenticate(created.key, when);
    expect((await store.accounts.listKeys('gina'))[0].lastUsedAt).toEqual(when);
  });
});
