import type { FastifyInstance, FastifyRequest } from 'fastify';
import { DomainError } from '../../platform/errors.ts';

export interface Account {
  id: string;
  user: string;
  tier: string;
  keyId: string;
}

export type AuthResult =
  { ok: true; account: Account } | { ok: false; reason: 'missing' | 'unknown' | 'expired' | 'revoked' };

export interface UsageResult {
  allowed: boolean;
  limit: number;
  used: number;
  remaining: number;
  resetAt: Date;
  secondsToReset: number;
}

/** What the API needs from the accounts store (implemented by store/accounts.ts). */
export interface AccountsPort {
  authenticate(key: string): Promise<AuthResult>;
  consumeRequest(accountId: string, tier: string, now?: Date): Promise<UsageResult>;
  usageStatus(accountId: string, tier: string, now?: Date): Promise<UsageResult>;
}

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The caller. Set by the auth hook before any handler of a route that requires a key (every
     * route not marked `config.auth: false`); routes marked so must not read it.
     */
    account: Account;
    /** The caller's daily usage after counting this request (set with `account`). */
    usage: UsageResult;
  }
  interface FastifyContextConfig {
    /** false for the public probes and documents; every other route requires a key. */
    auth?: boolean;
    /**
     * true for the usage-status routes: the request is still counted, but never refused with a
     * 429, so a client that ran out can read when its budget resets.
     */
    quotaExempt?: boolean;
  }
}

const REASONS = {
  missing: 'API key missing: send it in the X-API-Key header',
  unknown: 'invalid API key',
  expired: 'API key expired',
  revoked: 'API key revoked',
} as const;

/**
 * Authenticates every route that does not opt out, then counts the request against the account's
 * daily budget (one atomic increment). Header lookup is case-insensitive, as HTTP requires.
 */
export function registerAuth(app: FastifyInstance, accounts: AccountsPort): void {
  // Kept beside the request, not on it: reading them on a route without a key is a 401, never undefined.
  const callers = new WeakMap<FastifyRequest, { account: Account; usage?: UsageResult }>();
  const caller = (request: FastifyRequest) => {
    const c = callers.get(request);
    if (!c) throw new DomainError('unauthorized', REASONS.missing);
    return c;
  };
  app.decorateRequest('account', {
    getter() {
      return caller(this).account;
    },
    setter(account: Account) {
      callers.set(this, { account });
    },
  });
  app.decorateRequest('usage', {
    getter() {
      const usage = caller(this).usage;
      if (!usage) throw new DomainError('internal', 'usage is read before it was counted');
      return usage;
    },
    setter(usage: UsageResult) {
      caller(this).usage = usage;
    },
  });
  app.addHook('onRequest', async (request: FastifyRequest) => {
    if (request.routeOptions.config?.auth === false) return;
    const url = request.routeOptions.url;
    if (!url) return; // 404s are answered without authentication
    if (url === '/docs' || url.startsWith('/docs/')) return; // the interactive documentation is public
    const raw = request.headers['x-api-key'];
    const key = (Array.isArray(raw) ? raw[0] : raw)?.trim() ?? '';
    const result = key ? await accounts.authenticate(key) : ({ ok: false, reason: 'missing' } as const);
    if (!result.ok) throw new DomainError('unauthorized', REASONS[result.reason]);
    request.account = result.account;
    request.log = request.log.child({ user: result.account.user, key_id: result.account.keyId });
    const client = request.headers['x-dmc-client'];
    if (client)
      request.log = request.log.child({
        client: String(client).slice(0, 100),
        client_version: String(request.headers['x-dmc-client-version'] ?? '').slice(0, 50),
      });
    const usage = await accounts.consumeRequest(result.account.id, result.account.tier);
    request.usage = usage;
    if (!usage.allowed && request.routeOptions.config?.quotaExempt !== true) {
      throw new DomainError(
        'credit_limit_exceeded',
        `daily request limit of ${usage.limit} reached for tier ${result.account.tier}; it resets at ${usage.resetAt.toISOString()}`,
        {
          retryAfterSeconds: usage.secondsToReset,
        },
      );
    }
  });
}
