import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openCatalog } from '../../../../engine/catalog/index.ts';
import { readShard, rowRecord } from '../../../../engine/catalog/reader.ts';
import { loadShard3d, type Shard3d } from '../../../../engine/catalog/three-d-reader.ts';
import type { Chem3dWorker } from '../../../../platform/chem3d/process.ts';
import { ASPIRIN, DRUGS, startThreeDStack } from '../../../support/three-d-stack.ts';
import { call, type TestStack } from '../../../workflows/support/stack.ts';

// Real parts (test/support/three-d-stack.ts): the service stack, the Python chem3d worker, a
// catalog of ChEMBL drugs made 3D-ready by its 3D stage, one catalog left without 3D.
const CAFFEINE = 'Cn1c(=O)c2c(ncn2C)n(C)c1=O';
let s: TestStack;
let py: Chem3dWorker;
let stored: Shard3d;
/** Catalog rows of ASPIRIN and CAFFEINE (the catalog orders rows its own way). */
let ASP = 0;
let CAF = 0;

beforeAll(async () => {
  let root: string;
  ({ s, py, root } = await startThreeDStack('drugs3d', 10, {
    rows3d: [[ASPIRIN, 'ASPIRIN'], [CAFFEINE, 'CAFFEINE'], ...DRUGS.slice(0, 10)],
    flat: { id: 'flat3', rows: DRUGS.slice(10, 14) },
    shardRows: null,
  }));
  const cat = await openCatalog(join(root, 'catalogs', 'drugs3d'));
  stored = await loadShard3d(cat, 0);
  const shard = readShard(readFileSync(cat.shardPath(0)), 0);
  const ids = Array.from({ length: stored.rows }, (_, r) =>
    String(rowRecord(shard, r, ['product_id']).product_id),
  );
  ASP = ids.indexOf('ASPIRIN');
  CAF = ids.indexOf('CAFFEINE');
}, 600_000);

afterAll(async () => {
  await py?.stop();
  await s?.stack.stop();
});

const q = (list: string[]) => list.map((x) => `search_input=${encodeURIComponent(x)}`).join('&');
/** The catalog's stored first-stage descriptors of row `row`, per conformer. */
function storedRows(row: number): number[][] {
  const { descriptors, offsets } = stored.table;
  return Array.from({ length: offsets[row + 1] - offsets[row] }, (_, c) =>
    Array.from(descriptors.subarray((offsets[row] + c) * 60, (offsets[row] + c + 1) * 60)),
  );
}

describe('3D embeddings (espsim_shape, espsim_electrostatic)', () => {
  it("/embeddings gives each molecule's conformers × 60 first-stage floats, equal to the catalog's own", async () => {
    const r = await call(
      s,
      'GET',
      `/embeddings?${q([ASPIRIN, 'C1CC', CAFFEINE])}&search_type=espsim_shape`,
      s.keyA,
    );
    expect(r.status, r.raw).toBe(200);
    expect(r.body).toMatchObject({
      search_type: 'espsim_shape',
      embedding_type: 'conformers',
      dimensions: 60,
    });
    // the same recipe (ETKDGv3, seed 42) as the catalog's 3D stage: the same vectors as row 0 / row 1
    expect(r.body.embeddings[0]).toEqual(storedRows(ASP));
    expect(r.body.embeddings[2]).toEqual(storedRows(CAF));
    expect(r.body.conformers).toEqual([storedRows(ASP).length, 0, storedRows(CAF).length]);
    expect(r.body.embeddings[1]).toBeNull();
    expect(r.body.errors[1]).toMatch(/unparsable|cannot embed/);
    const e = await call(s, 'GET', `/embeddings?${q([ASPIRIN])}&search_type=espsim_electrostatic`, s.keyA);
    expect(e.body.embeddings[0]).toEqual(storedRows(ASP));
  });

  it('/centroid_embeddings is the mean over molecules of their mean conformer vector', async () => {
    const r = await call(
      s,
      'GET',
      `/centroid_embeddings?${q([ASPIRIN, CAFFEINE])}&search_type=espsim_shape`,
      s.keyA,
    );
    expect(r.status, r.raw).toBe(200);
    const mean = (rows: number[][]) =>
      rows[0].map((_, k) => rows.reduce((t, v) => t + v[k], 0) / rows.length);
    const want = mean([mean(storedRows(ASP)), mean(storedRows(CAF))]);
    expect(r.body.n_molecules).toBe(2);
    r.body.centroid.forEach((v: number, k: number) => expect(v).toBeCloseTo(want[k], 5));
  });

  it('/molsearch_embedding with a 3D embedding finds the molecule first (first-stage similarity 1)', async () => {
    const vector = storedRows(ASP).flat();
    const r = await call(
      s,
      'POST',
      '/molsearch_embedding?search_type=espsim_shape&db_names=drugs3d&n_neighbors=4',
      s.keyA,
      { embedding: vector },
    );
    expect(r.status, r.raw).toBe(200);
    expect(r.body.neighbors).toHaveLength(4);
    expect(r.body.neighbors[0]).toMatchObject({ id: 'ASPIRIN', database: 'drugs3d' });
    expect(r.body.neighbors[0].similarity).toBeCloseTo(1, 5);
    const sims = r.body.neighbors.map((n: { similarity: number }) => n.similarity);
    expect([...sims].sort((a, b) => b - a)).toEqual(sims);
    // one conformer in the URL, no db_names: the 3D-ready database is searched
    const g = await call(
      s,
      'GET',
      `/molsearch_embedding?search_type=espsim_electrostatic&embedding=${storedRows(CAF)[0].join(',')}&n_neighbors=1`,
      s.keyA,
    );
    expect(g.status, g.raw).toBe(200);
    expect(g.body.neighbors[0].id).toBe('CAFFEINE');
  });

  it('refuses bad 3D vectors, databases that are not 3D-ready, on_bits, sparse format and too many molecules', async () => {
    const bad = await call(
      s,
      'GET',
      `/molsearch_embedding?search_type=espsim_shape&embedding=${'1,'.repeat(58)}1`,
      s.keyA,
    );
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['query', 'embedding']);
    const flat = await call(
      s,
      'POST',
      '/molsearch_embedding?search_type=espsim_shape&db_names=flat3',
      s.keyA,
      { embedding: storedRows(ASP)[0] },
    );
    expect(flat.status).toBe(422);
    expect(flat.body.detail[0].loc).toEqual(['query', 'db_names']);
    const bits = await call(s, 'GET', '/molsearch_embedding?search_type=espsim_shape&on_bits=3', s.keyA);
    expect(bits.body.detail[0].loc).toEqual(['query', 'on_bits']);
    const sparse = await call(
      s,
      'GET',
      `/embeddings?${q([ASPIRIN])}&search_type=espsim_shape&format=sparse`,
      s.keyA,
    );
    expect(sparse.body.detail[0].loc).toEqual(['query', 'format']);
    const many = await call(
      s,
      'GET',
      `/embeddings?${q(Array(21).fill('CCO'))}&search_type=espsim_shape`,
      s.keyA,
    );
    expect(many.status).toBe(422);
    expect(many.body.detail[0]).toMatchObject({
      loc: ['query', 'search_input'],
      type: 'value_error.too_large',
    });
  });

  it('/embeddings_file writes every conformer as .npy rows and an index of first conformer and count', async () => {
    const up = await s.stack.app.inject({
      method: 'POST',
      url: '/upload_file?path=three.smi',
      headers: { 'x-api-key': s.keyA, 'content-type': 'text/csv' },
      payload: `${ASPIRIN} a\nC1CC bad\n${CAFFEINE} c\n`,
    });
    expect(up.statusCode, up.body).toBe(200);
    const r = await call(s, 'GET', '/embeddings_file?input_file=three.smi&search_type=espsim_shape', s.keyA);
    expect(r.status, r.raw).toBe(200);
    const n0 = storedRows(ASP).length;
    const n1 = storedRows(CAF).length;
    expect(r.body).toMatchObject({ count: 3, errors: 1, dimensions: 60, conformers: n0 + n1 });
    const keys = await s.stack.objects.list('users/');
    const npyKey = keys.find((k) => k.endsWith('embeddings/three_espsim_shape_embeddings.npy'))!;
    const npy = Buffer.from(await s.stack.objects.getBytes(npyKey));
    const headerLen = npy.readUInt16LE(8);
    expect(npy.subarray(10, 10 + headerLen).toString()).toContain(`'shape': (${n0 + n1}, 60)`);
    const values = new Float32Array(new Uint8Array(npy.subarray(10 + headerLen)).buffer);
    expect(Array.from(values.subarray(n0 * 60, n0 * 60 + 60))).toEqual(storedRows(CAF)[0]);
    const index = Buffer.from(await s.stack.objects.getBytes(npyKey.replace('.npy', '_index.csv')))
      .toString()
      .trim()
      .split('\r\n');
    expect(index[0]).toBe('row,smiles,first_conformer,conformers,error');
    expect(index[1]).toBe(`0,${ASPIRIN},0,${n0},`);
    expect(index[3]).toBe(`2,${CAFFEINE},${n0},${n1},`);
  });

  it('answers 503 with Retry-After when no 3D worker runs; search by a given 3D embedding still works', async () => {
    await py.stop();
    const r = await s.stack.app.inject({
      method: 'GET',
      url: `/embeddings?search_input=CCO&search_type=espsim_shape`,
      headers: { 'x-api-key': s.keyA },
    });
    expect(r.statusCode).toBe(503);
    expect(r.headers['retry-after']).toBeDefined();
    const e = await call(
      s,
      'POST',
      '/molsearch_embedding?search_type=espsim_shape&db_names=drugs3d&n_neighbors=1',
      s.keyA,
      { embedding: storedRows(ASP).flat() },
    );
    expect(e.status).toBe(200);
  });
});
