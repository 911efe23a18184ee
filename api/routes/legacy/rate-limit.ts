import { Type } from '@sinclair/typebox';
import type { App } from '../../types.ts';

const SnakeStatus = Type.Object({
  limit: Type.Integer(),
  used: Type.Integer(),
  remaining: Type.Integer(),
  reset_at: Type.String({ format: 'date-time' }),
  seconds_to_reset: Type.Integer(),
  account_type: Type.String(),
});

const CamelStatus = Type.Object({
  plan: Type.String(),
  limit: Type.Integer(),
  used: Type.Integer(),
  remaining: Type.Integer(),
  unlimited: Type.Boolean(),
  window: Type.Literal('day'),
  resetAt: Type.String({ format: 'date-time' }),
  secondsToReset: Type.Integer(),
  userId: Type.String(),
});

/** Daily usage after counting this very request (the auth hook consumed it); answered even past the limit. */
export function registerRateLimitRoutes(app: App): void {
  app.get(
    '/rate_limit_status',
    {
      config: { quotaExempt: true },
      schema: {
        tags: ['account'],
        summary: 'Daily request usage (snake_case)',
        response: { 200: SnakeStatus },
      },
    },
    async (request) => {
      const u = request.usage;
      return {
        limit: u.limit,
        used: u.used,
        remaining: u.remaining,
        reset_at: u.resetAt.toISOString(),
        seconds_to_reset: u.secondsToReset,
        account_type: request.account.tier,
      };
    },
  );
  app.get(
    '/rate-limit/status',
    {
      config: { quotaExempt: true },
      schema: {
        tags: ['account'],
        summary: 'Daily request usage (camelCase)',
        response: { 200: CamelStatus },
      },
    },
    async (request) => {
      const u = request.usage;
      return {
        plan: request.account.tier,
        limit: u.limit,
        used: u.used,
        remaining: u.remaining,
        unlimited: false,
        window: 'day' as const,
        resetAt: u.resetAt.toISOString(),
        secondsToReset: u.secondsToReset,
        userId: request.account.user,
      };
    },
  );
}
