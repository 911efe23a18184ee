import type { Db } from './db.ts';

/** Daily request usage of one account; the day is the UTC calendar day of `now`. */
export interface UsageStatus {
  limit: number;
  /** Requests counted today, never above `limit`. */
  used: number;
  remaining: number;
  /** The next 00:00 UTC, when the count starts again from zero. */
  resetAt: Date;
  /** Whole seconds from now to resetAt, rounded up (1..86400): the Retry-After of a 429. */
  secondsToReset: number;
}

export interface ConsumeResult extends UsageStatus {
  /** false means: answer 429 with Retry-After = secondsToReset; the request was not counted. */
  allowed: boolean;
}

const DAY_MS = 86_400_000;

/** The UTC calendar day of `now` as 'YYYY-MM-DD'. */
export function utcDay(now: Date): string {
  return now.toISOString().slice(0, 10);
}

/** The first instant of the UTC day after `now`. */
export function nextUtcMidnight(now: Date): Date {
  return new Date(Math.floor(now.getTime() / DAY_MS) * DAY_MS + DAY_MS);
}

function status(limit: number, used: number, now: Date): UsageStatus {
  const resetAt = nextUtcMidnight(now);
  const capped = Math.min(used, limit);
  return {
    limit,
    used: capped,
    remaining: limit - capped,
    resetAt,
    secondsToReset: Math.ceil((resetAt.getTime() - now.getTime()) / 1000),
  };
}

/**
 * Counts one request of `accountId` against `limit` for the UTC day of `now`, in ONE statement:
 * the upsert increments only while the stored count is below the limit, and row locking makes
 * concurrent callers see each other's increments, so N concurrent calls get exactly 1..N (up to
 * the limit) on PostgreSQL and PGlite alike. A rejected request is NOT counted: the stored count
 * never exceeds the limit, and the result reports used = limit, remaining 0, allowed false.
 */
export async function consumeRequest(
  db: Db,
  accountId: string,
  limit: number,
  now: Date,
): Promise<ConsumeResult> {
  // `WHERE $3 > 0` keeps a zero limit from inserting a first count of 1.
  const rows = await db.query<{ count: number }>(
    `INSERT INTO usage_daily (account_id, day, count)
     SELECT $1, $2::date, 1 WHERE $3::integer > 0
     ON CONFLICT (account_id, day) DO UPDATE SET count = usage_daily.count + 1
       WHERE usage_daily.count < $3::integer
     RETURNING count`,
    [accountId, utcDay(now), limit],
  );
  if (rows.length === 0) return { allowed: false, ...status(limit, limit, now) };
  return { allowed: true, ...status(limit, rows[0].count, now) };
}

/**
 * The usage of `accountId` for the UTC day of `now`, without counting a request; `allowed` tells
 * whether one more request would be accepted now.
 */
export async function readUsage(db: Db, accountId: string, limit: number, now: Date): Promise<ConsumeResult> {
  const rows = await db.query<{ count: number }>(
    'SELECT count FROM usage_daily WHERE account_id = $1 AND day = $2::date',
    [accountId, utcDay(now)],
  );
  const s = status(limit, rows[0]?.count ?? 0, now);
  return { allowed: s.used < limit, ...s };
}
