import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TIER_LIMITS } from '../../platform/config.ts';
import { openStore, type Store } from '../../store/index.ts';
import { runKeysCommand } from '../../store/keys-cli.ts';
import { BACKENDS, type TestTarget } from './backends.ts';

const NOW = new Date('2026-05-01T12:00:00Z');

describe.each(BACKENDS)('keys command on $title', (backend) => {
  if (!backend.available) {
    it.skip(`every keys command test (${backend.title})`, () => {});
    return;
  }
  let target: TestTarget;
  let store: Store;
  const run = async (...argv: string[]) => {
    const lines: string[] = [];
    await runKeysCommand(argv, { store, print: (l) => lines.push(l), now: NOW });
    return lines;
  };

  beforeAll(async () => {
    target = await backend.open();
    store = await openStore({ ...target, tierLimits: { ...DEFAULT_TIER_LIMITS } });
  });
  afterAll(async () => {
    await store?.close();
    await target?.dispose();
  });

  it('creates a key, prints it once with a note, and the key authenticates', async () => {
    const out = await run(
      'keys',
      'create',
      '--tier',
      'premium',
      '--user',
      'alice',
      '--expires',
      '2027-01-01',
    );
    expect(out).toHaveLength(2);
    const [key, note] = out;
    expect(key).toMatch(/^ms_[A-Za-z0-9_-]{43}$/);
    expect(note).toMatch(
      /^created key key_\S+ \(prefix ms_\S{5}\) for user alice, tier premium, expires 2027-01-01T00:00:00.000Z\. Store it now: it cannot be shown again\.$/,
    );
    expect(await store.accounts.authenticate(key, NOW)).toMatchObject({
      ok: true,
      account: { user: 'alice', tier: 'premium' },
    });
  });

  it('lists keys without their secret and revokes one by prefix', async () => {
    const [key] = await run('create', '--user=bob', '--tier=free');
    const listing = await run('list', '--user', 'bob');
    expect(listing[0]).toMatch(/^KEY ID\s+PREFIX\s+USER\s+TIER\s+STATUS\s+CREATED\s+EXPIRES\s+LAST USED$/);
    expect(listing).toHaveLength(2);
    expect(listing[1]).toContain(key.slice(0, 8));
    expect(listing[1]).toMatch(/\bbob\s+free\s+active\b/);
    expect(listing.join('\n')).not.toContain(key.slice(8));
    const revoked = await run('revoke', key.slice(0, 8));
    expect(revoked[0]).toMatch(/^revoked key key_\S+ \(prefix .{8}\) of user bob at /);
    expect(await store.accounts.authenticate(key)).toEqual({ ok: false, reason: 'revoked' });
    expect((await run('list', '--user', 'bob'))[1]).toMatch(/\brevoked\b/);
    expect(await run('list', '--user', 'nobody')).toEqual(['no keys for user nobody']);
  });

  it('explains bad command lines', async () => {
    const cases: [string[], RegExp][] = [
      [['create', '--user', 'carol'], /missing --tier/],
      [['create', '--tier', 'free'], /missing --user/],
      [
        ['create', '--tier', 'gold', '--user', 'carol'],
        /unknown tier "gold"; expected one of: free, academia, premium, ultra, enterprise, demo/,
      ],
      [['create', '--tier', 'free', '--user', 'carol', '--tear', 'x'], /Unknown option '--tear'/],
      [['create', '--tier', 'free', '--user'], /--user/],
      [
        ['create', '--tier', 'free', '--user', 'carol', '--expires', 'next week'],
        /--expires: expected YYYY-MM-DD/,
      ],
      [
        ['create', '--tier', 'free', '--user', 'carol', '--expires', '2020-01-01'],
        /--expires: 2020-01-01T00:00:00.000Z is not in the future/,
      ],
      [['create', '--tier', 'free', '--user', 'carol', 'extra'], /unexpected argument "extra"/],
      [['revoke'], /expected 1 argument/],
      [['revoke', 'key_missing'], /API key "key_missing" not found/],
      [['rotate'], /unknown keys command "rotate"/],
    ];
    for (const [argv, message] of cases) await expect(run(...argv), argv.join(' ')).rejects.toThrow(message);
    expect(await store.accounts.listKeys('carol')).toEqual([]);
  });

  it('prints the usage for help', async () => {
    expect((await run('help'))[0]).toMatch(/^usage:\n\s+keys create --tier <tier> --user <name>/);
  });
});
