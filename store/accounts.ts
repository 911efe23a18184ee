import { createHash, randomBytes } from 'node:crypto';
import { DomainError, notFound, validationError } from '../platform/errors.ts';
import type { Db } from './db.ts';
import { consumeRequest, readUsage, type ConsumeResult, type UsageStatus } from './usage.ts';

export type { ConsumeResult, UsageStatus } from './usage.ts';

/** Why a key was refused; every one of them is a 401, never a 500. */
export const AUTH_FAILURES = ['missing', 'unknown', 'expired', 'revoked'] as const;
export type AuthFailure = (typeof AUTH_FAILURES)[number];

export interface AuthenticatedAccount {
  id: string;
  user: string;
  /** Effective tier: the key's override, else the account's tier. */
  tier: string;
  keyId: string;
}

export type AuthResult = { ok: true; account: AuthenticatedAccount } | { ok: false; reason: AuthFailure };

export interface CreatedKey {
  /** The secret; shown once, never stored. */
  key: string;
  keyId: string;
  prefix: string;
  accountId: string;
  user: string;
  tier: string;
  expiresAt: Date | null;
}

export interface KeyInfo {
  keyId: string;
  prefix: string;
  accountId: string;
  user: string;
  tier: string;
  status: 'active' | 'expired' | 'revoked';
  createdAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
}

export interface Accounts {
  createApiKey(input: { user: string; tier: string; expiresAt?: Date }): Promise<CreatedKey>;
  authenticate(key: string | undefined | null, now?: Date): Promise<AuthResult>;
  revokeApiKey(keyIdOrPrefix: string, now?: Date): Promise<KeyInfo>;
  listKeys(user?: string, now?: Date): Promise<KeyInfo[]>;
  consumeRequest(accountId: string, tier: string, now?: Date): Promise<ConsumeResult>;
  /** Today's usage without counting a request; `allowed` says whether one more would pass. */
  usageStatus(accountId: string, tier: string, now?: Date): Promise<ConsumeResult>;
  /** The configured daily limit of a tier; throws for an unknown tier. */
  limitOf(tier: string): number;
}

const KEY_PREFIX = 'ms_';
const KEY_PATTERN = /^ms_[A-Za-z0-9_-]{43}$/;
const DISPLAY_PREFIX_LENGTH = 8;
const USER_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._@+-]{0,127}$/;
/** last_used_at is refreshed at most this often, so authentication is not a write per request. */
const LAST_USED_RESOLUTION_MS = 60_000;

/** SHA-256 (hex) of an API key: the only form in which a key is stored. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** The 401 to raise for a refused key. */
export function unauthorizedError(reason: AuthFailure): DomainError {
  const msg = {
    missing: 'missing API key',
    unknown: 'invalid API key',
    expired: 'API key expired',
    revoked: 'API key revoked',
  }[reason];
  return new DomainError('unauthorized', msg);
}

/** The 429 to raise when `consumeRequest` answered allowed = false (Retry-After to next 00:00 UTC). */
export function rateLimitedError(usage: UsageStatus): DomainError {
  return new DomainError(
    'credit_limit_exceeded',
    `daily request limit of ${usage.limit} reached; resets at ${usage.resetAt.toISOString()}`,
    {
      retryAfterSeconds: usage.secondsToReset,
    },
  );
}

interface KeyRow {
  key_id: string;
  prefix: string;
  account_id: string;
  user_name: string;
  tier: string;
  created_at: Date;
  expires_at: Date | null;
  revoked_at: Date | null;
  last_used_at: Date | null;
}

const KEY_SELECT = `SELECT k.id AS key_id, k.prefix, k.account_id, a.user_name, COALESCE(k.tier, a.tier) AS tier,
  k.created_at, k.expires_at, k.revoked_at, k.last_used_at
  FROM api_keys k JOIN accounts a ON a.id = k.account_id`;

function keyStatus(row: KeyRow, now: Date): KeyInfo['status'] {
  if (row.revoked_at) return 'revoked';
  if (row.expires_at && row.expires_at.getTime() <= now.getTime()) return 'expired';
  return 'active';
}

function toInfo(row: KeyRow, now: Date): KeyInfo {
  return {
    keyId: row.key_id,
    prefix: row.prefix,
    accountId: row.account_id,
    user: row.user_name,
    tier: row.tier,
    status: keyStatus(row, now),
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
    lastUsedAt: row.last_used_at,
  };
}

/**
 * Accounts, API keys and daily usage over the metadata store. `tierLimits` maps each tier to its
 * daily request limit (config.tierLimits); it is also the closed set of tiers keys may have.
 * Creating a key for an existing user keeps the account and records a differing tier as the
 * key's override.
 */
export function createAccounts(db: Db, opts: { tierLimits: Record<string, number> }): Accounts {
  const tierLimits = opts.tierLimits;
  const tiers = () => Object.keys(tierLimits).join(', ');

  function limitOf(tier: string): number {
    const limit = Object.hasOwn(tierLimits, tier) ? tierLimits[tier] : undefined;
    // A key whose tier was removed from the configuration: refuse clearly rather than guess a limit.
    if (limit === undefined)
      throw new DomainError(
        'forbidden',
        `tier ${JSON.stringify(tier)} is not configured (tiers: ${tiers()})`,
      );
    return limit;
  }

  return {
    limitOf,

    async createApiKey({ user, tier, expiresAt }) {
      if (!Object.hasOwn(tierLimits, tier))
        throw validationError(['tier'], `unknown tier ${JSON.stringify(tier)}; expected one of: ${tiers()}`);
      if (typeof user !== 'string' || !USER_PATTERN.test(user)) {
        throw validationError(
          ['user'],
          'user must be 1-128 characters: letters, digits and . _ @ + - (starting with a letter or digit)',
        );
      }
      if (expiresAt !== undefined && Number.isNaN(expiresAt.getTime()))
        throw validationError(['expires'], 'invalid expiry date');
      const key = KEY_PREFIX + randomBytes(32).toString('base64url');
      const keyId = `key_${randomBytes(9).toString('base64url')}`;
      const prefix = key.slice(0, DISPLAY_PREFIX_LENGTH);
      return db.transaction(async (tx) => {
        // The no-op update makes RETURNING yield the existing row when the user already exists.
        const [account] = await tx.query<{ id: string; tier: string }>(
          `INSERT INTO accounts (id, user_name, tier) VALUES ($1, $2, $3)
           ON CONFLICT (user_name) DO UPDATE SET user_name = EXCLUDED.user_name RETURNING id, tier`,
          [`acc_${randomBytes(9).toString('base64url')}`, user, tier],
        );
        await tx.query(
          'INSERT INTO api_keys (id, account_id, key_hash, prefix, tier, expires_at) VALUES ($1, $2, $3, $4, $5, $6)',
          [
            keyId,
            account.id,
            hashApiKey(key),
            prefix,
            account.tier === tier ? null : tier,
            expiresAt ?? null,
          ],
        );
        return { key, keyId, prefix, accountId: account.id, user, tier, expiresAt: expiresAt ?? null };
      });
    },

    async authenticate(key, now = new Date()) {
      // Checked at run time too: a header may arrive as an array or not at all.
      if (key === undefined || key === null || (typeof key === 'string' && key.trim() === ''))
        return { ok: false, reason: 'missing' };
      if (typeof key !== 'string' || !KEY_PATTERN.test(key)) return { ok: false, reason: 'unknown' };
      const [row] = await db.query<KeyRow>(`${KEY_SELECT} WHERE k.key_hash = $1`, [hashApiKey(key)]);
      if (!row) return { ok: false, reason: 'unknown' };
      const status = keyStatus(row, now);
      if (status !== 'active') return { ok: false, reason: status };
      if (!row.last_used_at || now.getTime() - row.last_used_at.getTime() >= LAST_USED_RESOLUTION_MS) {
        await db.query('UPDATE api_keys SET last_used_at = $2 WHERE id = $1', [row.key_id, now]);
      }
      return {
        ok: true,
        account: { id: row.account_id, user: row.user_name, tier: row.tier, keyId: row.key_id },
      };
    },

    async revokeApiKey(keyIdOrPrefix, now = new Date()) {
      const matches = await db.query<{ id: string }>('SELECT id FROM api_keys WHERE id = $1 OR prefix = $1', [
        keyIdOrPrefix,
      ]);
      if (matches.length === 0) throw notFound(`API key ${JSON.stringify(keyIdOrPrefix)}`);
      if (matches.length > 1)
        throw new DomainError(
          'conflict',
          `prefix ${JSON.stringify(keyIdOrPrefix)} matches ${matches.length} keys; revoke by key id`,
        );
      // COALESCE keeps the first revocation time: revoking twice is harmless.
      await db.query('UPDATE api_keys SET revoked_at = COALESCE(revoked_at, $2) WHERE id = $1', [
        matches[0].id,
        now,
      ]);
      const [row] = await db.query<KeyRow>(`${KEY_SELECT} WHERE k.id = $1`, [matches[0].id]);
      return toInfo(row, now);
    },

    async listKeys(user, now = new Date()) {
      const rows =
        user === undefined
          ? await db.query<KeyRow>(`${KEY_SELECT} ORDER BY a.user_name, k.created_at, k.id`)
          : await db.query<KeyRow>(`${KEY_SELECT} WHERE a.user_name = $1 ORDER BY k.created_at, k.id`, [
              user,
            ]);
      return rows.map((r) => toInfo(r, now));
    },

    async consumeRequest(accountId, tier, now = new Date()) {
      return consumeRequest(db, accountId, limitOf(tier), now);
    },
    async usageStatus(accountId, tier, now = new Date()) {
      return readUsage(db, accountId, limitOf(tier), now);
    },
  };
}
