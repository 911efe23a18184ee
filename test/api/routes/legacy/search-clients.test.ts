import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildReferenceCatalog,
  referenceTanimoto,
  type Reference,
} from '../../../support/fixture-catalog.ts';
import { startApiHarness, type ApiHarness } from '../../../support/api-harness.ts';

let h: ApiHarness;
let ref: Reference;
let ids: Map<string, number>;

beforeAll(async () => {
  const a = await buildReferenceCatalog({ id: 'refcat_a', take: (_m, i) => i % 2 === 0 });
  const b = await buildReferenceCatalog({ id: 'refcat_b', take: (_m, i) => i % 2 === 1 });
  ref = a.reference;
  ids = new Map([...a.ids, ...b.ids]);
  h = await startApiHarness([a.catalog, b.catalog]);
});
afterAll(async () => h?.close());

const get = (url: string, key: string | null = h.key, header = 'X-API-Key') =>
  h.app.inject({ method: 'GET', url, headers: key === null ? {} : { [header]: key } });
const q = (params: Record<string, string | number | string[]>) =>
  Object.entries(params)
    .flatMap(([k, v]) => (Array.isArray(v) ? v : [v]).map((x) => `${k}=${encodeURIComponent(String(x))}`))
    .join('&');

// What real clients send (issue 15): oversized n_neighbors, empty and multi-token values, and
// one score per pair across the synchronous searches.
describe('GET /molsearch and /batch_search as real clients call them', () => {
  it('answers the search types older clients send (active_pairs) by the nearest one, saying so', async () => {
    // client-contract.md: a client that gets a 422 for active_pairs or usr_shape writes nothing.
    const base = { search_input: 'c1ccccc1O', db_names: 'refcat_a', n_neighbors: 5 };
    const morgan = (await get(`/molsearch?${q({ ...base, search_type: 'morgan' })}`)).json();
    for (const path of ['/molsearch', '/molsearch_simple']) {
      const res = await get(`${path}?${q({ ...base, search_type: 'active_pairs' })}`);
      expect(res.statusCode, path).toBe(200);
      expect(res.json().remarks, path).toMatch(/search_type active_pairs is answered by morgan/);
      expect(res.json().search_info.search_type).toEqual(['morgan']);
      const pairs = (r: { neighbors: Array<{ id: string; similarity: number }> }) =>
        r.neighbors.map((n) => [n.id, n.similarity]);
      expect(pairs(res.json()), path).toEqual(pairs(morgan));
    }
    const batch = await get(
      `/batch_search?${q({ ...base, search_type: 'active_pairs', search_mode: 'batch' })}`,
    );
    expect(batch.statusCode).toBe(200);
    expect(batch.json()[0].neighbors.map((n: { id: string }) => n.id)).toEqual(
      morgan.neighbors.map((n: { id: string }) => n.id),
    );
    // Any other unknown type is still a 422 naming search_type.
    const bad = await get(`/molsearch?${q({ ...base, search_type: 'active_pair' })}`);
    expect(bad.statusCode).toBe(422);
    expect(bad.json().detail[0].loc).toEqual(['query', 'search_type', 0]);
  });

  it('caps n_neighbors above 100 at 100 rows with a remark, on every synchronous search', async () => {
    const base = { search_input: 'CCO', search_type: 'morgan', db_names: ['refcat_a', 'refcat_b'] };
    const hundred = (await get(`/molsearch?${q({ ...base, n_neighbors: 100 })}`)).json();
    expect(hundred.neighbors).toHaveLength(100);
    expect(hundred.remarks).not.toMatch(/capped/);
    for (const path of ['/molsearch', '/molsearch_simple']) {
      const res = await get(`${path}?${q({ ...base, n_neighbors: 10_000 })}`);
      expect(res.statusCode, path).toBe(200);
      expect(res.json().remarks, path).toMatch(/n_neighbors 10000 capped at 100/);
      expect(res.json().neighbors.map((n: { id: string }) => n.id)).toEqual(
        hundred.neighbors.map((n: { id: string }) => n.id),
      );
    }
    for (const mode of ['batch', 'centroid']) {
      const res = await get(
        `/batch_search?${q({ ...base, search_input: ['CCO', 'c1ccccc1'], search_mode: mode, n_neighbors: 10_000 })}`,
      );
      expect(res.statusCode, mode).toBe(200);
      const payloads = mode === 'batch' ? res.json() : [res.json()];
      for (const p of payloads) {
        expect(p.neighbors, mode).toHaveLength(100);
        expect(p.remarks, mode).toMatch(/capped at 100/);
      }
    }
    const zero = await get(`/molsearch?${q({ ...base, n_neighbors: 0 })}`);
    expect(zero.statusCode).toBe(422);
    expect(zero.json().detail[0].loc).toEqual(['query', 'n_neighbors']);
    const huge = await get(`/molsearch?${q({ ...base, n_neighbors: '99999999999999999999' })}`);
    expect(huge.statusCode).toBe(422);
    expect(huge.json().detail[0].loc).toEqual(['query', 'n_neighbors']);
  });

  it('answers empty db_names and a search_input holding a tab or newline with a 422 naming the field', async () => {
    const empty = await get(`/molsearch?search_input=CCO&search_type=morgan&db_names=`);
    expect(empty.statusCode).toBe(422);
    expect(empty.json().detail[0].loc).toEqual(['query', 'db_names']);
    for (const bad of ['CCO\tCCN', 'CCO\nc1ccccc1', 'CCO c1ccccc1']) {
      const res = await get(
        `/molsearch?${q({ search_input: bad, search_type: 'morgan', db_names: 'refcat_a' })}`,
      );
      expect(res.statusCode, JSON.stringify(bad)).toBe(422);
      expect(res.json().detail[0].loc).toEqual(['query', 'search_input']);
    }
    const nul = await get(`/molsearch?search_input=CC%00O&search_type=morgan&db_names=refcat_a`);
    expect(nul.statusCode).toBe(422);
    expect(nul.json().detail[0].loc).toEqual(['query', 'search_input']);
  });

  it('answers an empty or broken JSON body with a 422 naming the body, as FastAPI does', async () => {
    for (const payload of ['', '{"prop_ranges": ']) {
      const res = await h.app.inject({
        method: 'POST',
        url: '/get_molsearch_page?job_name=job_x',
        headers: { 'X-API-Key': h.key, 'content-type': 'application/json' },
        payload,
      });
      expect(res.statusCode, payload).toBe(422);
      const issue = res.json().detail[0];
      expect(issue.loc, payload).toEqual(['body']);
      expect(issue.msg, payload).toMatch(payload ? /not valid JSON/ : /body is empty/);
    }
  });

  it('gives one pair one score: /molsearch, batch and single-input centroid all answer the exact double', async () => {
    const qi = 7;
    const base = { search_type: 'morgan', db_names: ['refcat_a', 'refcat_b'], n_neighbors: 15 };
    const input = ref.molecules[qi].input;
    const single = (await get(`/molsearch?${q({ ...base, search_input: input })}`)).json();
    const batch = (
      await get(`/batch_search?${q({ ...base, search_input: [input], search_mode: 'batch' })}`)
    ).json();
    const centroid = (
      await get(`/batch_search?${q({ ...base, search_input: [input], search_mode: 'centroid' })}`)
    ).json();
    const scores = (p: { neighbors: { id: string; similarity: number }[] }) =>
      Object.fromEntries(p.neighbors.map((n) => [n.id, n.similarity]));
    const want = scores(single);
    expect(scores(batch[0])).toEqual(want);
    expect(scores(centroid)).toEqual(want);
    // Exactly RDKit's value (both / either of the Python on-bits), not a float32 widened.
    for (const [id, s] of Object.entries(want))
      expect(s, id).toBe(referenceTanimoto(ref.molecules[qi].on_bits, ref.molecules[ids.get(id)!].on_bits));
    expect(Object.values(want).some((s) => Math.fround(s) !== s)).toBe(true);
  });
});
