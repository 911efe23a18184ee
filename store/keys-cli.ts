import { parseArgs } from 'node:util';
import { DomainError } from '../platform/errors.ts';
import type { Accounts, KeyInfo } from './accounts.ts';

export const KEYS_USAGE = `usage:
  keys create --tier <tier> --user <name> [--expires <YYYY-MM-DD | ISO timestamp>]
  keys list [--user <name>]
  keys revoke <keyId | prefix>`;

export interface KeysCommandDeps {
  store: { accounts: Accounts };
  /** Writes one line of output (stdout in the CLI). */
  print: (line: string) => void;
  /** Clock for the expiry check and key statuses (tests). */
  now?: Date;
}

/** Thrown for a bad `keys` command line; the message names the problem and ends with the usage. */
function usageError(problem: string): DomainError {
  return new DomainError('validation_error', `${problem}\n${KEYS_USAGE}`);
}

function parse(args: string[], options: Record<string, { type: 'string' }>, positionals: number) {
  let parsed;
  try {
    parsed = parseArgs({ args, options, strict: true, allowPositionals: true });
  } catch (err) {
    // parseArgs messages name the flag (e.g. "Unknown option '--tear'"); keep them, add the usage.
    throw usageError((err as Error).message);
  }
  if (parsed.positionals.length !== positionals) {
    throw usageError(
      positionals === 0
        ? `unexpected argument ${JSON.stringify(parsed.positionals[0])}`
        : `expected ${positionals} argument(s)`,
    );
  }
  return parsed as { values: Record<string, string | undefined>; positionals: string[] };
}

function required(values: Record<string, string | undefined>, name: string): string {
  const v = values[name];
  if (v === undefined || v.trim() === '') throw usageError(`missing --${name}`);
  return v.trim();
}

/** Accepts a date (that day, 00:00 UTC) or a full ISO-8601 timestamp with a time zone. */
function parseExpiry(raw: string, now: Date): Date {
  let d: Date | undefined;
  if (/^\d{4}-\d{2}-\d{2}$/.test(raw)) d = new Date(`${raw}T00:00:00Z`);
  else if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(raw)) d = new Date(raw);
  if (!d || Number.isNaN(d.getTime()))
    throw usageError(
      `--expires: expected YYYY-MM-DD or an ISO timestamp with a time zone, got ${JSON.stringify(raw)}`,
    );
  if (d.getTime() <= now.getTime()) throw usageError(`--expires: ${d.toISOString()} is not in the future`);
  return d;
}

const iso = (d: Date | null) => (d ? d.toISOString() : '-');

function formatKeys(keys: KeyInfo[]): string[] {
  const header = ['KEY ID', 'PREFIX', 'USER', 'TIER', 'STATUS', 'CREATED', 'EXPIRES', 'LAST USED'];
  const rows = keys.map((k) => [
    k.keyId,
    k.prefix,
    k.user,
    k.tier,
    k.status,
    iso(k.createdAt),
    iso(k.expiresAt),
    iso(k.lastUsedAt),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  return [header, ...rows].map((r) =>
    r
      .map((c, i) => c.padEnd(widths[i]))
      .join('  ')
      .trimEnd(),
  );
}

/**
 * Runs `keys create|list|revoke` (argv may start with 'keys'). `create` prints the key once on its
 * own line, then a note that it cannot be shown again; only its hash is stored. Throws an
 * DomainError (validation_error, not_found, conflict) with a clear message for bad input; the caller
 * prints it and exits non-zero.
 */
export async function runKeysCommand(argv: string[], deps: KeysCommandDeps): Promise<void> {
  const args = argv[0] === 'keys' ? argv.slice(1) : argv;
  const [sub, ...rest] = args;
  const { accounts } = deps.store;
  const now = deps.now ?? new Date();
  switch (sub) {
    case 'create': {
      const { values } = parse(
        rest,
        { tier: { type: 'string' }, user: { type: 'string' }, expires: { type: 'string' } },
        0,
      );
      const tier = required(values, 'tier');
      const user = required(values, 'user');
      const expiresAt = values.expires === undefined ? undefined : parseExpiry(values.expires.trim(), now);
      const created = await accounts.createApiKey({ user, tier, expiresAt });
      deps.print(created.key);
      deps.print(
        `created key ${created.keyId} (prefix ${created.prefix}) for user ${created.user}, tier ${created.tier}, ` +
          `expires ${created.expiresAt ? created.expiresAt.toISOString() : 'never'}. Store it now: it cannot be shown again.`,
      );
      return;
    }
    case 'list': {
      const { values } = parse(rest, { user: { type: 'string' } }, 0);
      const keys = await accounts.listKeys(values.user, now);
      if (keys.length === 0) deps.print(values.user ? `no keys for user ${values.user}` : 'no keys');
      else for (const line of formatKeys(keys)) deps.print(line);
      return;
    }
    case 'revoke': {
      const { positionals } = parse(rest, {}, 1);
      const info = await accounts.revokeApiKey(positionals[0], now);
      deps.print(
        `revoked key ${info.keyId} (prefix ${info.prefix}) of user ${info.user} at ${iso(info.revokedAt)}`,
      );
      return;
    }
    case undefined:
    case 'help':
    case '--help':
      deps.print(KEYS_USAGE);
      return;
    default:
      throw usageError(`unknown keys command ${JSON.stringify(sub)}`);
  }
}
