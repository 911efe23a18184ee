import { describe, expect, it } from 'vitest';
import Fastify from 'fastify';
import { Type } from '@sinclair/typebox';
import { normalizeLegacyQuery } from '../../../api/plugins/legacy-query.ts';
import { registerErrorHandler } from '../../../api/plugins/errors.ts';
import { PagingBody } from '../../../api/routes/legacy/jobs.ts';

/** A real Fastify app with the same hook and error handler as api/app.ts, and one legacy-style POST route. */
async function app() {
  const f = Fastify();
  registerErrorHandler(f);
  f.addHook('preValidation', async (request) => normalizeLegacyQuery(request));
  const Query = Type.Object({
    include_properties: Type.Boolean({ default: false }),
    search_quality: Type.Optional(Type.Union([Type.Literal('fast'), Type.Literal('very_accurate')])),
  });
  f.post(
    '/get_molsearch_page',
    { schema: { querystring: Query, body: Type.Optional(PagingBody) } },
    async (request) => ({ query: request.query, body: request.body }),
  );
  await f.ready();
  return f;
}

describe('legacy request normalisation', () => {
  it('treats a legacy POST without a body as {} instead of answering 422', async () => {
    const f = await app();
    const res = await f.inject({ method: 'POST', url: '/get_molsearch_page?include_properties=True' });
    expect(res.statusCode).toBe(200);
    expect(res.json().body).toEqual({ neighbor_ids: [] }); // the schema's defaults, as for a posted {}
    expect(res.json().query.include_properties).toBe(true);
    await f.close();
  });

  it('accepts True/False and "very accurate", and lists the allowed values once for a bad enum value', async () => {
    const f = await app();
    const ok = await f.inject({
      method: 'POST',
      url: '/get_molsearch_page?include_properties=False&search_quality=very%20accurate',
      payload: {},
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().query).toEqual({ include_properties: false, search_quality: 'very_accurate' });
    const bad = await f.inject({
      method: 'POST',
      url: '/get_molsearch_page?search_quality=ultra',
      payload: {},
    });
    expect(bad.statusCode).toBe(422);
    expect(bad.json()).toEqual({
      detail: [
        {
          loc: ['query', 'search_quality'],
          msg: 'must be one of: fast, very_accurate',
          type: 'value_error.enum',
        },
      ],
    });
    await f.close();
  });
});
