import { afterAll, describe, expect, it } from 'vitest';
import Fastify from 'fastify';
import { registerRequestLimits } from '../../../api/plugins/request-limits.ts';
import { requestLimits } from '../../../api/services/request-limits.ts';

// A service call made while handling a request sees that request's limits, however deep in
// async work it happens, and never another request's.
const app = Fastify();
registerRequestLimits(app, 5000);
app.get('/limits', async (request) => {
  await new Promise((r) => setTimeout(r, Number((request.query as { wait?: string }).wait ?? 0)));
  const { deadline, signal } = requestLimits();
  return { deadline, aborted: signal?.aborted, tag: (request.query as { tag?: string }).tag };
});
afterAll(() => app.close());

describe('request limits', () => {
  it('gives each request a deadline from its arrival and a live signal, kept apart under concurrency', async () => {
    const t0 = Date.now();
    const answers = await Promise.all(
      ['a', 'b', 'c'].map((tag, i) =>
        app.inject(`/limits?tag=${tag}&wait=${30 - i * 10}`).then((r) => r.json()),
      ),
    );
    for (const [i, a] of answers.entries()) {
      expect(a.tag).toBe(['a', 'b', 'c'][i]);
      expect(a.aborted).toBe(false);
      expect(a.deadline).toBeGreaterThanOrEqual(t0 + 5000);
      expect(a.deadline).toBeLessThan(Date.now() + 5000);
    }
  });

  it('has no limits outside a request', () => {
    expect(requestLimits()).toEqual({});
  });
});
