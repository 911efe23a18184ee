import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { writeSyntheticCatalog } from '../../testkit/synthetic-catalog.ts';
import { call, stackEnv, startTestStack, tempDir, waitStatus, type TestStack } from './support/stack.ts';

// Analysis jobs end to end: the shared Temporal dev server, PGlite, the local object store, the
// in-process worker running analysisJobWorkflow, two synthetic catalogs, the API through inject().
const ref = JSON.parse(
  readFileSync(new URL('../fixtures/analysis-reference.json', import.meta.url), 'utf8'),
) as { set_a: { smiles: string[] }; set_b: { smiles: string[] } };
const MOLS = [...ref.set_a.smiles, ...ref.set_b.smiles]; // 550 molecules
let s: TestStack;

beforeAll(async () => {
  const dir = await tempDir('analysis-job');
  const catalogDir = join(dir, 'catalogs');
  await writeSyntheticCatalog(catalogDir, 'synthA', 3_000, 1_000, 3);
  await writeSyntheticCatalog(catalogDir, 'synthB', 2_000, 1_000, 4);
  s = await startTestStack(
    stackEnv(
      join(dir, 'data'),
      catalogDir,
      inject('temporalAddress'),
      `aj-${randomBytes(4).toString('hex')}`,
    ),
  );
}, 120_000);
afterAll(async () => {
  await s?.stack.stop();
});

const list = (key: string, values: string[]) =>
  values.map((v) => `${key}=${encodeURIComponent(v)}`).join('&');

/** Parses a float32 .npy: its shape and values. */
function npy(bytes: Buffer): { shape: number[]; values: Float32Array } {
  const headerLen = bytes.readUInt16LE(8);
  const header = bytes.subarray(10, 10 + headerLen).toString('latin1');
  expect(header).toContain("'descr': '<f4'");
  const shape = /'shape': \(([^)]*)\)/
    .exec(header)![1]
    .split(',')
    .filter((x) => x.trim())
    .map(Number);
  return { shape, values: new Float32Array(new Uint8Array(bytes.subarray(10 + headerLen)).buffer) };
}

async function resultFile(job: string, name: string): Promise<Buffer> {
  const r = await s.stack.app.inject({
    method: 'GET',
    url: `/analysis_result_file?job_name=${job}&name=${name}`,
    headers: { 'x-api-key': s.keyA },
  });
  expect(r.statusCode, r.body).toBe(200);
  return r.rawPayload;
}

async function upload(path: string, rows: string[]): Promise<void> {
  const up = await s.stack.app.inject({
    method: 'POST',
    url: `/upload_file?path=${path}`,
    headers: { 'x-api-key': s.keyA, 'content-type': 'text/csv' },
    payload: rows.join('\n') + '\n',
  });
  expect(up.statusCode, up.body).toBe(200);
}

async function finished(job: string) {
  expect(await waitStatus(s, s.keyA, job, 240_000)).toBe('SUCCESS');
  const r = await call(s, 'GET', `/analysis_result?job_name=${job}`, s.keyA);
  expect(r.status, r.raw).toBe(200);
  return r.body;
}

describe('analysis jobs: inputs above the synchronous limits', () => {
  it('a similarity matrix above 250,000 cells is a job whose matrix.npy equals the synchronous rows', async () => {
    // 550 × 550 = 302,500 cells: above the synchronous limit
    const r = await call(s, 'GET', `/similarity_matrix?${list('smiles_list_1', [...MOLS, 'C1CC'])}`, s.keyA);
    expect(r.status, r.raw).toBe(202);
    expect(r.body).toMatchObject({ status: 'PENDING', mode: 'job' });
    const job = r.body.job_name;
    const out = await finished(job);
    expect(out).toMatchObject({ kind: 'analysis_matrix', progress: { shards_done: 1, shards_total: 1 } });
    expect(out.result).toMatchObject({ rows: 551, cols: 551, files: ['matrix.npy'] });
    const m = npy(await resultFile(job, 'matrix.npy'));
    expect(m.shape).toEqual([551, 551]);
    // the same cells as the synchronous matrix of the first 20 rows against every column
    const sync = await call(
      s,
      'GET',
      `/similarity_matrix?${list('smiles_list_1', MOLS.slice(0, 20))}&${list('smiles_list_2', [...MOLS, 'C1CC'])}`,
      s.keyA,
    );
    expect(sync.status).toBe(200);
    for (let i = 0; i < 20; i++)
      for (let j = 0; j < 551; j++) {
        const want = sync.body.matrix[i][j];
        if (want === null) expect(m.values[i * 551 + j]).toBeNaN();
        else expect(m.values[i * 551 + j]).toBe(Math.fround(want));
      }
    // the unparsable last row is NaN throughout
    expect(Array.from(m.values.subarray(550 * 551)).every(Number.isNaN)).toBe(true);
    const info = await call(s, 'GET', `/job_info?job_name=${job}`, s.keyA);
    expect(info.body.parameters).toMatchObject({ rows: 551, cols: 551, search_type: 'morgan' });
  }, 300_000);

  it('a whole database against itself: every molecule finds itself (nearest score 1), chunk per shard', async () => {
    const r = await call(s, 'GET', '/database_similarity?source_db=synthB&db_names=synthB&bins=10', s.keyA);
    expect(r.status, r.raw).toBe(202);
    const out = await finished(r.body.job_name);
    expect(out.progress).toEqual({ shards_done: 2, shards_total: 2 });
    expect(out.result).toMatchObject({ source_db: 'synthB', molecules: 2000, without_neighbour: 0 });
    expect(out.result.distribution).toMatchObject({ count: 2000, min: 1, max: 1 });
    const nearest = npy(await resultFile(r.body.job_name, 'nearest.npy'));
    expect(nearest.shape).toEqual([2000, 1]);
    expect(Array.from(nearest.values).every((x) => x === 1)).toBe(true);
  }, 300_000);

  it('a database against another: the distribution of nearest scores over both shards of the target', async () => {
    const r = await call(s, 'GET', '/database_similarity?source_db=synthB&db_names=synthA&bins=20', s.keyA);
    const out = await finished(r.body.job_name);
    const d = out.result.distribution;
    expect(d.count).toBe(2000);
    expect(d.max).toBeLessThan(1);
    expect(d.histogram.counts.reduce((a: number, b: number) => a + b, 0)).toBe(2000);
    const nearest = npy(await resultFile(r.body.job_name, 'nearest.npy')).values;
    expect(Math.min(...nearest)).toBeCloseTo(d.min, 6);
  }, 300_000);

  it('a list above 100 molecules is a job with the same nearest scores as the synchronous answer', async () => {
    const mols = [...MOLS.slice(0, 150), 'not-a-smiles'];
    const r = await call(
      s,
      'GET',
      `/database_similarity?${list('search_input', mols)}&db_names=synthA`,
      s.keyA,
    );
    expect(r.status, r.raw).toBe(202);
    const out = await finished(r.body.job_name);
    expect(out.result).toMatchObject({ molecules: 151, without_neighbour: 1 });
    const nearest = npy(await resultFile(r.body.job_name, 'nearest.npy')).values;
    expect(nearest[150]).toBeNaN();
    const sync = await call(
      s,
      'GET',
      `/database_similarity?${list('search_input', mols.slice(0, 100))}&db_names=synthA`,
      s.keyA,
    );
    expect(sync.status).toBe(200);
    sync.body.nearest.forEach((n: { similarity: number }, i: number) =>
      expect(nearest[i]).toBeCloseTo(n.similarity, 6),
    );
  }, 300_000);

  it('/embeddings_file above 1,000 rows is a job writing the .npy and index to the caller’s area', async () => {
    const rows = Array.from({ length: 1_200 }, (_, i) => MOLS[i % MOLS.length]);
    rows[7] = 'C1CC';
    const up = await s.stack.app.inject({
      method: 'POST',
      url: '/upload_file?path=big.smi',
      headers: { 'x-api-key': s.keyA, 'content-type': 'text/csv' },
      payload: rows.join('\n') + '\n',
    });
    expect(up.statusCode, up.body).toBe(200);
    const r = await call(s, 'GET', '/embeddings_file?input_file=big.smi&embedding_type=counts', s.keyA);
    expect(r.status, r.raw).toBe(202);
    const out = await finished(r.body.job_name);
    expect(out.progress).toEqual({ shards_done: 2, shards_total: 2 });
    expect(out.result).toMatchObject({
      count: 1200,
      errors: 1,
      dimensions: 2048,
      output_files: ['embeddings/big_morgan_embeddings.npy', 'embeddings/big_morgan_embeddings_index.csv'],
    });
    const keys = await s.stack.objects.list('users/');
    const npyKey = keys.find((k) => k.endsWith('embeddings/big_morgan_embeddings.npy'))!;
    const m = npy(Buffer.from(await s.stack.objects.getBytes(npyKey)));
    expect(m.shape).toEqual([1200, 2048]);
    const sync = await call(
      s,
      'GET',
      `/embeddings?${list('search_input', [rows[0], rows[1100]])}&embedding_type=counts`,
      s.keyA,
    );
    expect(Array.from(m.values.subarray(0, 2048))).toEqual(sync.body.embeddings[0]);
    expect(Array.from(m.values.subarray(1100 * 2048, 1101 * 2048))).toEqual(sync.body.embeddings[1]);
    const index = Buffer.from(await s.stack.objects.getBytes(npyKey.replace('.npy', '_index.csv')))
      .toString()
      .trim()
      .split('\r\n');
    expect(index).toHaveLength(1201);
    expect(index[8]).toMatch(/^7,C1CC,,.+/);
  }, 300_000);

  it('clusters an uploaded file above 2,000 molecules as a job and stores the clustering for /nearest_cluster', async () => {
    const rows = Array.from({ length: 2_200 }, (_, i) => MOLS[i % MOLS.length]);
    await upload('clu.smi', rows);
    const r = await call(s, 'GET', '/cluster?input_file=clu.smi&method=butina&threshold=0.4', s.keyA);
    expect(r.status, r.raw).toBe(202);
    const out = await finished(r.body.job_name);
    expect(out.result).toMatchObject({
      op: 'cluster',
      method: 'butina',
      molecules: 2200,
      files: ['clusters.json'],
    });
    const clusters = JSON.parse((await resultFile(r.body.job_name, 'clusters.json')).toString());
    expect(clusters.labels).toHaveLength(2200);
    // the same molecule repeated falls in the same cluster; every molecule is in exactly one
    for (let i = 0; i < 550; i++) expect(clusters.labels[i + 550]).toBe(clusters.labels[i]);
    expect(clusters.clusters.reduce((n: number, c: { size: number }) => n + c.size, 0)).toBe(2200);
    const near = await call(
      s,
      'GET',
      `/nearest_cluster?clustering_id=${out.result.clustering_id}&${list('search_input', [MOLS[3]])}`,
      s.keyA,
    );
    expect(near.status, near.raw).toBe(200);
    expect(near.body.cluster[0]).toBe(clusters.labels[3]);
  }, 300_000);

  it('/visualize_file above 1,000 rows is a job writing the coordinates CSV (PCA)', async () => {
    const rows = Array.from({ length: 1_100 }, (_, i) => MOLS[i % MOLS.length]);
    await upload('map.smi', rows);
    const r = await call(s, 'GET', '/visualize_file?input_file=map.smi', s.keyA);
    expect(r.status, r.raw).toBe(202);
    const out = await finished(r.body.job_name);
    expect(out.result).toMatchObject({
      visualisation_method: 'pca',
      count: 1100,
      errors: 0,
      output_files: ['visualization_coords/map_pca_coords.csv'],
    });
    expect(out.result.explained_variance_ratio).toHaveLength(2);
    const keys = await s.stack.objects.list('users/');
    const csvKey = keys.find((k) => k.endsWith('visualization_coords/map_pca_coords.csv'))!;
    const lines = Buffer.from(await s.stack.objects.getBytes(csvKey))
      .toString()
      .trim()
      .split('\r\n');
    expect(lines).toHaveLength(1101);
    const xy = (i: number) => lines[i + 1].split(',').slice(-3, -1).map(Number);
    expect(xy(600)).toEqual(xy(50)); // the same molecule, the same point
    expect(xy(0).every(Number.isFinite)).toBe(true);
  }, 300_000);

  it('refuses bad input with 422 before a job starts, and unknown or foreign jobs and files', async () => {
    const both = await call(
      s,
      'GET',
      `/database_similarity?search_input=CCO&source_db=synthB&db_names=synthA`,
      s.keyA,
    );
    expect(both.status).toBe(422);
    const unknown = await call(s, 'GET', '/database_similarity?source_db=nope&db_names=synthA', s.keyA);
    expect(unknown.status).toBe(422);
    expect(unknown.body.detail[0].loc).toEqual(['query', 'source_db']);
    const noFile = await call(s, 'GET', '/similarity_matrix?input_file_1=missing.csv', s.keyA);
    expect(noFile.status).toBe(422);
    expect(noFile.body.detail[0].loc).toEqual(['query', 'input_file_1']);
    const escape = await call(s, 'GET', '/embeddings_file?input_file=../x.smi', s.keyA);
    expect(escape.status).toBe(422);
    await s.stack.app.inject({
      method: 'POST',
      url: '/upload_file?path=many.smi',
      headers: { 'x-api-key': s.keyA, 'content-type': 'text/csv' },
      payload: Array(1_001).fill('CCO').join('\n') + '\n',
    });
    const kind = await call(s, 'GET', '/embeddings_file?input_file=many.smi&embedding_type=fancy', s.keyA);
    expect(kind.status).toBe(422);
    expect(kind.body.detail[0].loc).toEqual(['query', 'embedding_type']);
    const method = await call(s, 'GET', '/cluster?input_file=clu.smi&method=ward', s.keyA);
    expect(method.status).toBe(422);
    expect(method.body.detail[0].loc).toEqual(['query', 'method']);
    await upload('huge.smi', Array(5_001).fill('CCO'));
    const tooBig = await call(
      s,
      'GET',
      '/visualize_file?input_file=huge.smi&visualisation_method=tsne',
      s.keyA,
    );
    expect(tooBig.status).toBe(422);
    expect(tooBig.body.detail[0]).toMatchObject({
      loc: ['query', 'input_file'],
      type: 'value_error.too_large',
    });
    // an input error only the engine finds fails the job at once (non-retryable), with the reason
    const k = await call(s, 'GET', '/cluster?input_file=clu.smi&method=kmeans&n_clusters=1500', s.keyA);
    expect(k.status, k.raw).toBe(202);
    expect(await waitStatus(s, s.keyA, k.body.job_name, 120_000)).toBe('FAILURE');
    const failed = await call(s, 'GET', `/job_info?job_name=${k.body.job_name}`, s.keyA);
    expect(failed.body.error).toMatch(/n_clusters/);
    const tooMany = await call(
      s,
      'GET',
      `/similarity_matrix?${list('smiles_list_1', Array(1001).fill('C'))}`,
      s.keyA,
    );
    expect(tooMany.status).toBe(422);
    const mol = await call(
      s,
      'GET',
      `/submit_molsearch?search_input=CCO&search_type=morgan&db_names=synthA&n_neighbors=5`,
      s.keyA,
    );
    expect((await call(s, 'GET', `/analysis_result?job_name=${mol.body}`, s.keyA)).status).toBe(422);
    expect(
      (await call(s, 'GET', '/analysis_result?job_name=job_01JD5Q5Z6W3Y8K2M4N6P8R0T2V', s.keyA)).status,
    ).toBe(404);
    const r = await call(s, 'GET', '/database_similarity?source_db=synthB&db_names=synthB', s.keyA);
    await waitStatus(s, s.keyA, r.body.job_name, 240_000);
    // another user's job does not exist for the caller; a file not in the result is a 404
    expect((await call(s, 'GET', `/analysis_result?job_name=${r.body.job_name}`, s.keyB)).status).toBe(404);
    const other = await s.stack.app.inject({
      method: 'GET',
      url: `/analysis_result_file?job_name=${r.body.job_name}&name=../request.json`,
      headers: { 'x-api-key': s.keyA },
    });
    expect(other.statusCode).toBe(404);
  }, 300_000);
});
