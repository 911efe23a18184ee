import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildReferenceCatalog, type Reference } from '../../../support/fixture-catalog.ts';
import { startApiHarness, type ApiHarness } from '../../../support/api-harness.ts';
import { analysisRef, expect422, getWith, type Params } from './support/analysis.ts';

let h: ApiHarness;
let ref: Reference;

beforeAll(async () => {
  const a = await buildReferenceCatalog({ id: 'refcat' });
  ref = a.reference;
  h = await startApiHarness([a.catalog], { analysis: true });
});
afterAll(async () => h?.close());

const get = (path: string, params: Params) => getWith(h, path, params);
const onBits = (v: number[]) => v.flatMap((x, i) => (x ? [i] : []));

describe('GET /embeddings', () => {
  it('gives the Morgan bits of Python RDKit, and null with an error for a bad row', async () => {
    const ms = ref.molecules.slice(0, 5);
    const res = await get('/embeddings', { search_input: [...ms.map((m) => m.input), 'C1CC'] });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.dimensions).toBe(2048);
    ms.forEach((m, i) => {
      expect(body.embeddings[i]).toHaveLength(2048);
      expect(onBits(body.embeddings[i])).toEqual([...m.on_bits].sort((x, y) => x - y));
      expect(body.canonical_smiles[i]).toBe(m.canonical);
    });
    expect(body.embeddings[5]).toBeNull();
    expect(body.errors[5]).toMatch(/unparsable/);
  });

  it('gives RDKit GetCountFingerprintAsNumPy counts in sparse form', async () => {
    const rows = analysisRef.morgan_counts.slice(0, 20);
    const res = await get('/embeddings', {
      search_input: rows.map((r) => r.smiles),
      embedding_type: 'counts',
      format: 'sparse',
    });
    expect(res.statusCode).toBe(200);
    rows.forEach((r, i) => expect(res.json().embeddings[i]).toEqual(r.counts));
  });

  it('refuses empty and oversized lists, unknown types and formats, and 3D search types', async () => {
    expect422(await get('/embeddings', {}), 'search_input');
    const big = Array.from({ length: 1001 }, () => 'C');
    expect422(await get('/embeddings', { search_input: big }), 'search_input', 'value_error.too_large');
    expect422(await get('/embeddings', { search_input: 'CCO', embedding_type: 'x' }), 'embedding_type');
    expect422(await get('/embeddings', { search_input: 'CCO', format: 'x' }), 'format');
    const shape = await get('/embeddings', { search_input: 'CCO', search_type: 'espsim_electrostatic' });
    expect422(shape, 'search_type', 'value_error.unknown_metric');
  });
});

describe('GET /centroid_embeddings', () => {
  it('is the bit frequency vector, and searching with it equals the centroid batch search', async () => {
    const ms = ref.molecules.slice(10, 14);
    const res = await get('/centroid_embeddings', { search_input: [...ms.map((m) => m.input), 'xx('] });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.n_molecules).toBe(4);
    expect(body.errors[4]).toBeTruthy();
    const want = new Array(2048).fill(0);
    for (const m of ms) for (const b of m.on_bits) want[b] += 1 / 4;
    body.centroid.forEach((x: number, i: number) => expect(x).toBeCloseTo(want[i], 12));
    const byVector = await h.app.inject({
      method: 'POST',
      url: '/molsearch_embedding?n_neighbors=8',
      headers: { 'X-API-Key': h.key },
      payload: { embedding: body.centroid },
    });
    const centroid = await get('/batch_search', {
      search_input: ms.map((m) => m.input),
      search_type: 'morgan',
      search_mode: 'centroid',
      n_neighbors: 8,
    });
    const ids = (r: { json(): { neighbors: { id: string }[] } }) => r.json().neighbors.map((n) => n.id);
    expect(ids(byVector)).toEqual(ids(centroid));
  });

  it('honours format=sparse like /embeddings: {index: frequency} of the non-zero bits', async () => {
    const ms = ref.molecules.slice(10, 12);
    const res = await get('/centroid_embeddings', { search_input: ms.map((m) => m.input), format: 'sparse' });
    expect(res.statusCode).toBe(200);
    const want: Record<string, number> = {};
    for (const m of ms) for (const b of m.on_bits) want[b] = (want[b] ?? 0) + 1 / 2;
    expect(res.json().centroid).toEqual(want);
    const bad = await get('/centroid_embeddings', { search_input: ['CCO'], format: 'csr' });
    expect422(bad, 'format');
  });

  it('refuses a list where nothing parses', async () => {
    expect422(await get('/centroid_embeddings', { search_input: ['C1CC', 'xx('] }), 'search_input');
  });
});

/** The float32 rows of a .npy file (format 1.0), with its shape. */
function readNpy(bytes: Uint8Array): { shape: number[]; values: Float32Array } {
  expect(Array.from(bytes.subarray(0, 6))).toEqual([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]);
  const len = bytes[8] | (bytes[9] << 8);
  const header = Buffer.from(bytes.subarray(10, 10 + len)).toString('latin1');
  expect(header).toContain("'descr': '<f4'");
  expect((10 + len) % 64).toBe(0);
  const shape = /'shape': \((\d+), (\d+)\)/.exec(header)!.slice(1).map(Number);
  const body = bytes.slice(10 + len);
  return { shape, values: new Float32Array(body.buffer, 0, body.length / 4) };
}

describe('GET /embeddings_file', () => {
  it('writes the .npy of the embeddings and an index CSV to the destination folder', async () => {
    const accountId = h.accountId;
    const ms = ref.molecules.slice(0, 6);
    const csv = ['name,SMILES', ...ms.map((m, i) => `m${i},${m.input}`), 'bad,C1CC'].join('\n');
    await h.objects!.put(`users/${accountId}/files/in/drugs.csv`, csv);
    const res = await get('/embeddings_file', { input_file: 'in/drugs.csv', dest_folder: 'out' });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.output_files).toEqual([
      'out/drugs_morgan_embeddings.npy',
      'out/drugs_morgan_embeddings_index.csv',
    ]);
    expect(body).toMatchObject({ status: 'SUCCESS', count: 7, errors: 1 });
    const npy = readNpy(await h.objects!.getBytes(`users/${accountId}/files/${body.output_files[0]}`));
    expect(npy.shape).toEqual([7, 2048]);
    ms.forEach((m, i) =>
      expect(onBits(Array.from(npy.values.subarray(i * 2048, (i + 1) * 2048)))).toEqual(
        [...m.on_bits].sort((x, y) => x - y),
      ),
    );
    expect(npy.values.subarray(6 * 2048).every((x) => x === 0)).toBe(true);
    const index = Buffer.from(
      await h.objects!.getBytes(`users/${accountId}/files/${body.output_files[1]}`),
    ).toString('utf8');
    expect(index.split('\r\n')[7]).toMatch(/^6,C1CC,,unparsable SMILES/);
  });

  it('refuses path escapes, missing files and a missing SMILES column before writing anything', async () => {
    expect422(await get('/embeddings_file', { input_file: '../x.csv' }), 'input_file', 'value_error.path');
    expect422(await get('/embeddings_file', { input_file: '/etc/passwd' }), 'input_file');
    expect422(
      await get('/embeddings_file', { input_file: 'in/drugs.csv', dest_folder: 'a/../../b' }),
      'dest_folder',
    );
    expect422(
      await get('/embeddings_file', { input_file: 'nothing.csv' }),
      'input_file',
      'value_error.not_found',
    );
    expect422(await get('/embeddings_file', { input_file: 'in/drugs.csv', smiles_col: 'smi' }), 'smiles_col');
  });
});
