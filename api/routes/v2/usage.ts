import { Type } from '@sinclair/typebox';
import type { App } from '../../types.ts';
import { Open, errorResponses } from './common.ts';

const Usage = Open({
  plan: Type.String(),
  limit: Type.Integer(),
  used: Type.Integer(),
  remaining: Type.Integer(),
  unlimited: Type.Boolean(),
  window: Type.Literal('day'),
  usage_day: Type.String({ description: 'The UTC day counted (YYYY-MM-DD)' }),
  reset_at: Type.String({ format: 'date-time' }),
  seconds_to_reset: Type.Integer(),
  user_id: Type.String(),
});

/**
 * GET /api/v2/usage: the caller's daily request budget, read by the released v2 SDK. The same
 * counts as /rate_limit_status and /rate-limit/status; reading it costs nothing.
 */
export function registerV2UsageRoute(app: App): void {
  app.get(
    '/api/v2/usage',
    {
      config: { quotaExempt: true },
      schema: {
        tags: ['v2'],
        summary: "Today's request usage and remaining budget (not counted)",
        response: { 200: Usage, ...errorResponses },
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
        usage_day: new Date(u.resetAt.getTime() - 86_400_000).toISOString().slice(0, 10),
        reset_at: u.resetAt.toISOString(),
        seconds_to_reset: u.secondsToReset,
        user_id: request.account.user,
      };
    },
  );
}
