// The not-found handler of api/plugins/errors.ts: a path that exists under another method answers
// 405 with Allow (v2: the error envelope, code method_not_allowed; legacy: FastAPI's body), a
// path that does not exist 404, and parameters and trailing slashes match as the router does.
import { afterAll, describe, expect, it } from 'vitest';
import Fastify from 'fastify';
import { registerErrorHandler } from '../../../api/plugins/errors.ts';

const app = Fastify();
registerErrorHandler(app);
app.get('/molsearch', async () => ({ ok: true }));
app.post('/submit_synthongpt_job', async () => 'job');
app.get('/api/v2/runs/:runId', async () => ({ ok: true }));
app.delete('/api/v2/runs/:runId', async () => ({ ok: true }));
afterAll(() => app.close());

describe('wrong method and unknown path', () => {
  it('answers 405 with Allow and FastAPI’s body on a legacy path', async () => {
    const r = await app.inject({ method: 'POST', url: '/molsearch?search_input=CCO' });
    expect(r.statusCode).toBe(405);
    expect(r.headers.allow).toBe('GET, HEAD');
    expect(r.json()).toEqual({ detail: 'Method Not Allowed' });
    const s = await app.inject({ method: 'GET', url: '/submit_synthongpt_job' });
    expect(s.statusCode).toBe(405);
    expect(s.headers.allow).toBe('POST');
  });

  it('answers 405 with the v2 envelope on a parametric v2 path', async () => {
    const r = await app.inject({ method: 'PUT', url: '/api/v2/runs/run_123' });
    expect(r.statusCode).toBe(405);
    expect(r.headers.allow).toBe('DELETE, GET, HEAD');
    expect(r.json().error).toMatchObject({ code: 'method_not_allowed', retryable: false });
    expect(r.json().error.message).toContain('PUT');
  });

  it('still answers 404 for a path no method takes', async () => {
    expect((await app.inject({ method: 'GET', url: '/molsearch_typo' })).statusCode).toBe(404);
    const v2 = await app.inject({ method: 'POST', url: '/api/v2/runs/a/b' });
    expect(v2.statusCode).toBe(404);
    expect(v2.json().error.code).toBe('not_found');
  });
});
