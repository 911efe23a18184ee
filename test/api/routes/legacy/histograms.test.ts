import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCatalog, openCatalog } from '../../../../engine/catalog/index.ts';
import { startApiHarness, type ApiHarness } from '../../../support/api-harness.ts';
import { analysisRef, expect422, getWith, type Params } from './support/analysis.ts';

let h: ApiHarness;

// A catalog of the fixture's 150 drugs: its molecular_weight column against numpy.histogram of
// RDKit's Descriptors.MolWt of the same molecules (scripts/reference/make_analysis_fixture.py).
beforeAll(async () => {
  const dir = await mkdtemp(join(tmpdir(), 'histcat-'));
  const lines = ['smiles\tid', ...analysisRef.set_a.smiles.map((s, i) => `${s}\tD${i}`)];
  await writeFile(join(dir, 'in.tsv'), lines.join('\n') + '\n');
  await buildCatalog({
    input: join(dir, 'in.tsv'),
    outDir: join(dir, 'drugs'),
    id: 'drugs',
    name: 'Drugs',
    smilesCol: 'smiles',
    idCol: 'id',
    delimiter: '\t',
    threads: 1,
    progress: false,
    shardRows: 40,
  });
  h = await startApiHarness([await openCatalog(join(dir, 'drugs'))], { analysis: true });
});
afterAll(async () => h?.close());

const get = (path: string, params: Params) => getWith(h, path, params);

describe('GET /property_histograms', () => {
  it('equals numpy.histogram of RDKit MolWt over the database (7 bins), across shards', async () => {
    const res = await get('/property_histograms', {
      db_name: 'drugs',
      properties: 'molecular_weight',
      bins: 7,
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    const want = analysisRef.histogram.molwt_bins7;
    expect(body.rows).toBe(analysisRef.set_a.smiles.length);
    const got = body.histograms.molecular_weight;
    expect(got.counts).toEqual(want.counts);
    got.edges.forEach((e: number, i: number) => expect(e).toBeCloseTo(want.edges[i], 3));
    expect(got).toMatchObject({ missing: 0, total: 150 });
  });

  it('counts every row of a column the catalog lacks as missing, and takes explicit edges', async () => {
    const body = (
      await get('/property_histograms', {
        db_name: 'drugs',
        properties: ['ames', 'clogp'],
        edges: [-10, 0, 10],
      })
    ).json();
    expect(body.histograms.ames).toMatchObject({ missing: 150, total: 150 });
    const c = body.histograms.clogp;
    expect(c.edges).toEqual([-10, 0, 10]);
    expect(c.counts[0] + c.counts[1] + c.below + c.above).toBe(150);
  });

  it('refuses unknown databases and columns, bad bins and edges', async () => {
    expect422(await get('/property_histograms', { db_name: 'nope' }), 'db_name');
    const bad = await get('/property_histograms', { db_name: 'drugs', properties: 'smiles' });
    expect422(bad, 'properties');
    expect(JSON.stringify(bad.json())).toContain('molecular_weight');
    expect422(await get('/property_histograms', { db_name: 'drugs', bins: 0 }), 'bins');
    expect422(await get('/property_histograms', { db_name: 'drugs', bins: 1001 }), 'bins');
    expect((await get('/property_histograms', { db_name: 'drugs', edges: [1, 0] })).statusCode).toBe(422);
  });
});

describe('GET /histograms', () => {
  it('needs a job service: without one job_name is a 422 naming it', async () => {
    expect422(await get('/histograms', { job_name: 'job_01JD6N0F7W5XQ8ZB9V2T3K4M5P' }), 'job_name');
    expect422(await get('/histograms', {}), 'job_name');
  });
});
