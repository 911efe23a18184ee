// Synthon spaces through the legacy API: listed as databases, searched by /molsearch (Morgan),
// checked against brute force over RDKit's enumeration (test/fixtures/synthons).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildReferenceCatalog } from '../../../support/fixture-catalog.ts';
import { startApiHarness, type ApiHarness } from '../../../support/api-harness.ts';
import { buildSpace } from '../../../../engine/synthons/build-space.ts';
import { decodeProductId } from '../../../../engine/synthons/assemble.ts';

const SOURCES = new URL('../../../../catalogs/spaces/sources/', import.meta.url).pathname;
const FIXTURE = new URL('../../../fixtures/synthons/similarity-reference.json', import.meta.url);
// Queries dissimilar to the whole toy space, brute force (scripts/reference/make_synthon_topk_fixture.py).
const DISSIMILAR = new URL('../../../fixtures/synthons/idorsia-dissimilar-reference.json', import.meta.url);
// Two reactions reaching one product, RDKit's products and Tanimotos (scripts/reference/make_two_routes_fixture.py).
const TWO_ROUTES = new URL('../../../fixtures/synthons/two_routes_space.txt', import.meta.url).pathname;
const TWO_ROUTES_REF = new URL('../../../fixtures/synthons/two-routes-reference.json', import.meta.url);
let h: ApiHarness;
let cat: Awaited<ReturnType<typeof buildReferenceCatalog>>;
let root: string;
let fixture: { spaces: Record<string, Array<{ query: string; top: Array<[string, number]> }>> };

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'api-spaces-'));
  fixture = JSON.parse(await readFile(FIXTURE, 'utf8'));
  const out = join(root, 'idorsia');
  await buildSpace({
    input: join(SOURCES, 'idorsia_toy_space_a.txt'),
    out,
    id: 'idorsia',
    name: 'Idorsia toy',
  });
  await buildSpace({ input: TWO_ROUTES, out: join(root, 'tworoutes'), id: 'tworoutes' });
  cat = await buildReferenceCatalog({ id: 'refcat', take: (_m, i) => i < 50 });
  h = await startApiHarness([cat.catalog], { spaceDirs: [out, join(root, 'tworoutes')], analysis: true });
});
afterAll(async () => {
  await h?.close();
  await rm(root, { recursive: true, force: true });
});

const get = (url: string) => h.app.inject({ method: 'GET', url, headers: { 'X-API-Key': h.key } });

describe('synthon spaces in the legacy API', () => {
  it('are listed with kind synthon and their product count', async () => {
    const full = (await get('/available_databases_full')).json();
    expect(full.idorsia).toMatchObject({ kind: 'synthon', number_of_molecules: 29200, name: 'Idorsia toy' });
    expect(full.refcat.kind).toBe('enumerated');
    expect((await get('/available_databases')).json().idorsia.number_of_molecules).toBe(29200);
  });

  it('a catalog whose 3D stage completes while the service runs serves its new search types', async () => {
    // What the 3D status service does when it sees the stage's manifest (api/services/three-d-status.ts).
    const before = cat.catalog.manifest;
    cat.catalog.manifest = { ...before, search_types: ['morgan', 'espsim_shape', 'espsim_electrostatic'] };
    try {
      const full = (await get('/available_databases_full')).json();
      expect(full.refcat.search_types).toEqual(['morgan', 'espsim_shape', 'espsim_electrostatic']);
      // The search-type check no longer refuses espsim_shape on refcat (no 3D service here: 503).
      const res = await get('/molsearch?search_input=CCO&search_type=espsim_shape&db_names=refcat');
      expect(res.json().detail?.[0]?.msg ?? '').not.toMatch(/not available for database refcat/);
    } finally {
      cat.catalog.manifest = before;
    }
  });

  it('/molsearch on a space returns the exact top-k of the enumeration', async () => {
    const e = fixture.spaces.idorsia_toy_space_a[2];
    const url = `/molsearch?search_input=${encodeURIComponent(e.query)}&search_type=morgan&db_names=idorsia&n_neighbors=10`;
    const res = await get(url);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    const sims = body.neighbors.map((n: { similarity: number }) => n.similarity);
    expect(sims).toEqual(e.top.slice(0, 10).map((t) => expect.closeTo(t[1], 5)));
    expect(body.neighbors[0].database).toBe('idorsia');
    expect(body.neighbors[0].id.split(';').length).toBeGreaterThanOrEqual(3);
    // Each row's synthons are a list, as in v2 hits and job pages (they were JSON text), and the
    // product id decodes to the row's reaction and synthon ids.
    for (const row of body.neighbors) {
      expect(Array.isArray(row.synthons), JSON.stringify(row.synthons)).toBe(true);
      expect(row.synthons.map((x: { slot: number }) => x.slot)).toEqual(
        row.synthons.map((_: unknown, i: number) => i),
      );
      const ids = decodeProductId(row.id);
      expect(ids?.reactionId).toBe(row.reaction_id);
      expect(ids?.synthonIds).toEqual(row.synthons.map((x: { synthon_id: string }) => x.synthon_id));
      for (const x of row.synthons) expect(x.smiles).toMatch(/\*/);
    }
  });

  it('search_type=synthongpt searches the space too (morgan scorer); a catalog refuses it', async () => {
    const e = fixture.spaces.idorsia_toy_space_a[2];
    const res = await get(
      `/molsearch?search_input=${encodeURIComponent(e.query)}&search_type=synthongpt&db_names=idorsia&n_neighbors=3`,
    );
    expect(res.statusCode).toBe(200);
    const sims = res.json().neighbors.map((n: { similarity: number }) => n.similarity);
    expect(sims).toEqual(e.top.slice(0, 3).map((t) => expect.closeTo(t[1], 5)));
    const cat = await get(`/molsearch?search_input=CCO&search_type=synthongpt&db_names=refcat`);
    expect(cat.statusCode).toBe(422);
  });

  it('/molsearch (morgan and synthongpt) on a query dissimilar to the space returns its k best, not 0', async () => {
    const ref = JSON.parse(await readFile(DISSIMILAR, 'utf8')) as {
      entries: Array<{ query: string; k: number; top: Array<[string, number]> }>;
    };
    const e = ref.entries[0];
    for (const type of ['morgan', 'synthongpt']) {
      const res = await get(
        `/molsearch?search_input=${encodeURIComponent(e.query)}&search_type=${type}&db_names=idorsia&n_neighbors=${e.k}`,
      );
      expect(res.statusCode).toBe(200);
      const sims = res.json().neighbors.map((n: { similarity: number }) => n.similarity);
      expect(sims).toEqual(e.top.slice(0, e.k).map((t) => expect.closeTo(t[1], 5)));
    }
  });

  it('/molsearch and /molsearch_simple return a product reached by two reactions once, still k rows', async () => {
    const ref = JSON.parse(await readFile(TWO_ROUTES_REF, 'utf8')) as {
      query: string;
      tuples: Array<{ reaction: string; smiles: string; similarity: number }>;
    };
    // The best score of each distinct product, best first: 6 tuples, 5 products.
    const best = new Map<string, number>();
    for (const t of ref.tuples) best.set(t.smiles, Math.max(best.get(t.smiles) ?? 0, t.similarity));
    const want = [...best].sort((a, b) => b[1] - a[1]);
    expect(ref.tuples.length - want.length).toBe(1);
    const q = encodeURIComponent(ref.query);
    for (const path of ['/molsearch', '/molsearch_simple'])
      for (const k of [2, 5, 10]) {
        const res = await get(
          `${path}?search_input=${q}&search_type=morgan&db_names=tworoutes&n_neighbors=${k}`,
        );
        expect(res.statusCode).toBe(200);
        const rows = res.json().neighbors as Array<{ smiles: string; similarity: number }>;
        const top = want.slice(0, k);
        expect(
          rows.map((r) => r.smiles),
          `${path} k=${k}`,
        ).toEqual(top.map(([s]) => s));
        expect(rows.map((r) => r.similarity)).toEqual(top.map(([, v]) => expect.closeTo(v, 5)));
      }
  });

  it('/database_similarity refuses a space with a 422 naming db_names', async () => {
    const res = await get('/database_similarity?search_input=CCO&db_names=idorsia');
    expect(res.statusCode).toBe(422);
    const detail = res.json().detail[0];
    expect(detail.loc).toEqual(['query', 'db_names']);
    expect(detail.msg).toMatch(/synthon spaces are not supported/);
    expect((await get('/database_similarity?search_input=CCO&db_names=refcat')).statusCode).toBe(200);
  });

  it('a bad SMILES on a space is a 422 naming search_input', async () => {
    const res = await get('/molsearch?search_input=C1CC&search_type=morgan&db_names=idorsia');
    expect(res.statusCode).toBe(422);
    expect(JSON.stringify(res.json())).toContain('search_input');
  });
});
