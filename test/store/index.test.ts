import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TIER_LIMITS } from '../../platform/config.ts';
import { openStore } from '../../store/index.ts';
import { BACKENDS, type TestTarget } from './backends.ts';

const tierLimits = { ...DEFAULT_TIER_LIMITS };

describe.each(BACKENDS)('openStore on $title', (backend) => {
  if (!backend.available) {
    it.skip(`every openStore test (${backend.title})`, () => {});
    return;
  }
  let target: TestTarget;
  let dir: string;

  beforeAll(async () => {
    target = await backend.open();
    // PGlite persists to a directory (that does not exist yet) instead of memory here.
    dir = await mkdtemp(join(tmpdir(), 'molsearch-pglite-'));
    if (backend.name === 'pglite') target = { ...target, pgliteDir: join(dir, 'nested', 'pglite') };
  });
  afterAll(async () => {
    await target?.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps accounts, keys and usage across a restart and does not re-apply migrations', async () => {
    const first = await openStore({ ...target, tierLimits });
    const created = await first.accounts.createApiKey({ user: 'persist', tier: 'academia' });
    const now = new Date('2026-07-01T09:00:00Z');
    await first.accounts.consumeRequest(created.accountId, 'academia', now);
    const [before] = await first.db.query<{ c: number }>('SELECT count(*) AS c FROM schema_migrations');
    await first.close();
    await first.close(); // idempotent

    const second = await openStore({ ...target, tierLimits });
    try {
      expect(await second.accounts.authenticate(created.key)).toMatchObject({
        ok: true,
        account: { user: 'persist', tier: 'academia' },
      });
      expect(await second.accounts.usageStatus(created.accountId, 'academia', now)).toMatchObject({
        used: 1,
        limit: 10_000,
      });
      const [after] = await second.db.query<{ c: number }>('SELECT count(*) AS c FROM schema_migrations');
      expect(after.c).toBe(before.c);
      expect(second.db.kind).toBe(backend.name);
    } finally {
      await second.close();
    }
  });
});
