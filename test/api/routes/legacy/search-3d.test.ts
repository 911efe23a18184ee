import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Chem3dWorker } from '../../../../platform/chem3d/process.ts';
import { ASPIRIN, DRUGS, startThreeDStack } from '../../../support/three-d-stack.ts';
import { call, type TestStack } from '../../../workflows/support/stack.ts';

// Real parts (test/support/three-d-stack.ts): the service stack, the Python chem3d worker, two
// catalogs of ChEMBL drugs built by RDKit, one made 3D-ready by its 3D stage.
let s: TestStack;
let py: Chem3dWorker;

beforeAll(async () => {
  ({ s, py } = await startThreeDStack('drugs3d', 40));
}, 600_000);

afterAll(async () => {
  await py?.stop();
  await s?.stack.stop();
});

describe('GET /molsearch with 3D search types', () => {
  it('reports the 3D-ready catalog and its search types', async () => {
    const r = await call(s, 'GET', '/available_databases_full', s.keyA);
    expect(r.body.drugs3d.search_types).toEqual(['morgan', 'espsim_shape', 'espsim_electrostatic']);
    expect(r.body.drugs3d.three_d).toMatchObject({ status: 'ready', counts: { molecules: 41 } });
    expect(r.body.flat.search_types).toEqual(['morgan']);
    expect(r.body.flat.three_d.status).toBe('not_built');
  });

  it('answers the default search type (espsim_shape) on the 3D-ready database: the query itself first, shape 1', async () => {
    const r = await call(
      s,
      'GET',
      `/molsearch?search_input=${encodeURIComponent(ASPIRIN)}&n_neighbors=5`,
      s.keyA,
    );
    expect(r.status, r.raw).toBe(200);
    expect(r.body.search_info).toMatchObject({ search_type: ['espsim_shape'], db_names: ['drugs3d'] });
    const top = r.body.neighbors[0];
    expect(top.id).toBe('ASPIRIN');
    expect(top.similarity).toBeCloseTo(1, 3);
    expect(top.Shapesim).toBe(top.similarity);
    expect(r.body.neighbors).toHaveLength(5);
    const sims = r.body.neighbors.map((n: { similarity: number }) => n.similarity);
    expect([...sims].sort((a, b) => b - a)).toEqual(sims);
    // A small catalog is screened by its grid tables (bench/shape/README.md: recall per quality).
    expect(r.body.remarks).toMatch(/first stage \(shape grid\) screened 41 rows/);
  });

  it('answers usr_shape, which older clients send, by espsim_shape with a remark', async () => {
    const url = (t: string) =>
      `/molsearch?search_input=${encodeURIComponent(ASPIRIN)}&n_neighbors=5&db_names=drugs3d&search_type=${t}`;
    const [usr, shape] = [
      await call(s, 'GET', url('usr_shape'), s.keyA),
      await call(s, 'GET', url('espsim_shape'), s.keyA),
    ];
    expect(usr.status, usr.raw).toBe(200);
    expect(usr.body.remarks).toMatch(/search_type usr_shape is answered by espsim_shape/);
    expect(usr.body.search_info.search_type).toEqual(['espsim_shape']);
    const ids = (r: typeof usr) =>
      r.body.neighbors.map((n: { id: string; similarity: number }) => [n.id, n.similarity]);
    expect(ids(usr)).toEqual(ids(shape));
  });

  it('ranks by the electrostatic score with espsim_electrostatic', async () => {
    const r = await call(
      s,
      'GET',
      `/molsearch?search_input=${encodeURIComponent(ASPIRIN)}&search_type=espsim_electrostatic&db_names=drugs3d&n_neighbors=3`,
      s.keyA,
    );
    expect(r.status, r.raw).toBe(200);
    expect(r.body.neighbors[0].id).toBe('ASPIRIN');
    expect(r.body.neighbors[0].Espsim).toBeCloseTo(1, 3);
    expect(r.body.remarks).toMatch(/first stage \(ESP pre-stage\)/);
    expect(
      r.body.neighbors.every((n: { similarity: number; Espsim: number }) => n.similarity === n.Espsim),
    ).toBe(true);
  });

  it('answers /batch_search in batch mode with one 3D payload per input; centroid mode with one payload', async () => {
    const inputs = [ASPIRIN, DRUGS[3][0]].map((x) => `search_input=${encodeURIComponent(x)}`).join('&');
    const r = await call(
      s,
      'GET',
      `/batch_search?${inputs}&search_type=espsim_shape&search_mode=batch&n_neighbors=2`,
      s.keyA,
    );
    expect(r.status, r.raw).toBe(200);
    expect(r.body).toHaveLength(2);
    expect(r.body[0].neighbors[0].id).toBe('ASPIRIN');
    expect(r.body[1].neighbors[0].id).toBe(DRUGS[3][1]);
    const c = await call(
      s,
      'GET',
      `/batch_search?${inputs}&search_type=espsim_shape&search_mode=centroid`,
      s.keyA,
    );
    expect(c.status, c.raw).toBe(200);
    expect(c.body.neighbors).toHaveLength(30);
  });

  it('is a 422 naming db_names for a database that is not 3D-ready', async () => {
    const r = await call(
      s,
      'GET',
      `/molsearch?search_input=CCO&search_type=espsim_shape&db_names=flat`,
      s.keyA,
    );
    expect(r.status).toBe(422);
    expect(r.body.detail[0].loc).toEqual(['query', 'db_names']);
    expect(r.body.detail[0].msg).toMatch(/not 3D-ready yet/);
  });

  it('is a 422 naming search_input with the reason for a query that cannot be embedded', async () => {
    const r = await call(s, 'GET', `/molsearch?search_input=${'C'.repeat(130)}&db_names=drugs3d`, s.keyA);
    expect(r.status).toBe(422);
    expect(r.body.detail[0].loc).toEqual(['query', 'search_input']);
    expect(r.body.detail[0].msg).toMatch(/too large for 3D: 130 heavy atoms/);
  });

  it('is a 422 naming search_input and the element for a query element 3D cannot score (was a 200 of ties at 0)', async () => {
    for (const type of ['espsim_electrostatic', 'espsim_shape']) {
      const r = await call(
        s,
        'GET',
        `/molsearch?search_input=[U]&search_type=${type}&db_names=drugs3d`,
        s.keyA,
      );
      expect(r.status, r.raw).toBe(422);
      expect(r.body.detail[0].loc).toEqual(['query', 'search_input']);
      expect(r.body.detail[0].msg).toMatch(/element\(s\) U not supported in 3D/);
    }
  });

  it('is a 422 naming search_input for a salt of monatomic ions only (was a shape ranking of KCl at 0.84)', async () => {
    for (const q of ['[K+].[Cl-]', '[Na+]']) {
      const r = await call(
        s,
        'GET',
        `/molsearch?search_input=${encodeURIComponent(q)}&db_names=drugs3d`,
        s.keyA,
      );
      expect(r.status, r.raw).toBe(422);
      expect(r.body.detail[0].loc).toEqual(['query', 'search_input']);
      expect(r.body.detail[0].msg).toMatch(/only monatomic ions/);
    }
    const b = await call(
      s,
      'GET',
      `/batch_search?search_input=${encodeURIComponent(ASPIRIN)}&search_input=${encodeURIComponent('[K+].[Cl-]')}&search_type=espsim_shape&search_mode=batch`,
      s.keyA,
    );
    expect(b.status, b.raw).toBe(422);
    expect(b.body.detail[0].loc).toEqual(['query', 'search_input', 1]);
  });

  it('fails fast with 503 and Retry-After when the 3D worker is down, while morgan keeps working', async () => {
    await py.stop();
    const t0 = Date.now();
    const r = await s.stack.app.inject({
      method: 'GET',
      url: `/molsearch?search_input=CCO&search_type=espsim_shape&db_names=drugs3d`,
      headers: { 'x-api-key': s.keyA },
    });
    expect(r.statusCode).toBe(503);
    expect(r.headers['retry-after']).toBeDefined();
    expect(Date.now() - t0).toBeLessThan(25_000);
    const m = await call(s, 'GET', `/molsearch?search_input=CCO&search_type=morgan&db_names=drugs3d`, s.keyA);
    expect(m.status).toBe(200);
  });
});
