import { readFileSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../../platform/logger.ts';
import { DEFAULT_TIER_LIMITS } from '../../../../platform/config.ts';
import { createLocalObjectStore } from '../../../../platform/object-store/index.ts';
import type { ObjectStore } from '../../../../platform/object-store/index.ts';
import { openStore, type Store } from '../../../../store/index.ts';
import { buildCatalog, openCatalog, ADMET_NAMES } from '../../../../engine/catalog/index.ts';
import { DESCRIPTOR_NAMES } from '../../../../engine/chem/descriptors.ts';
import { createSearchPool, type SearchPool } from '../../../../engine/search/index.ts';
import { buildApp } from '../../../../api/app.ts';
import { createCatalogSearchService } from '../../../../api/services/catalog-search.ts';
import { createAdmetService, exportFileName, type AdmetService } from '../../../../api/services/admet.ts';

// Python reference: onnxruntime scores and models/domain.py flags (models/make_prediction_fixture.py).
const fixture = JSON.parse(
  readFileSync(new URL('../../../engine/admet/fixtures/predictions-sample.json', import.meta.url), 'utf8'),
) as {
  smiles: string[];
  endpoints: Record<string, { score: number[]; in_domain: number[] }>;
};

let app: FastifyInstance;
let store: Store;
let pool: SearchPool;
let admet: AdmetService;
let objects: ObjectStore;
let key: string;
let accountId: string;

beforeAll(async () => {
  const dir = await mkdtemp(join(tmpdir(), 'predict-api-'));
  await writeFile(
    join(dir, 'in.tsv'),
    ['smiles\tid', ...fixture.smiles.map((s, i) => `${s}\tP${i}`)].join('\n') + '\n',
  );
  await buildCatalog({
    input: join(dir, 'in.tsv'),
    outDir: join(dir, 'admetcat'),
    id: 'admetcat',
    name: 'ADMET catalog',
    smilesCol: 'smiles',
    idCol: 'id',
    delimiter: '\t',
    threads: 1,
    progress: false,
    shardRows: 64,
    admet: true,
  });
  await buildCatalog({
    input: join(dir, 'in.tsv'),
    outDir: join(dir, 'plaincat'),
    id: 'plaincat',
    name: 'No predictions',
    smilesCol: 'smiles',
    idCol: 'id',
    delimiter: '\t',
    threads: 1,
    progress: false,
    limit: 50,
  });
  const catalogs = [await openCatalog(join(dir, 'admetcat')), await openCatalog(join(dir, 'plaincat'))];
  const log = createLogger({ level: 'warn', pretty: false });
  store = await openStore({ pgliteDir: 'memory://', tierLimits: DEFAULT_TIER_LIMITS }, log);
  pool = createSearchPool({ threads: 1, log });
  for (const c of catalogs) await pool.loadCatalog(c);
  const search = await createCatalogSearchService({ catalogs, pool, log });
  objects = createLocalObjectStore(join(dir, 'objects'));
  admet = createAdmetService({ objects, publicUrl: 'http://test.local', log });
  app = await buildApp({
    log,
    accounts: store.accounts,
    search,
    admet,
    health: [],
  });
  const created = await store.accounts.createApiKey({ user: 'predictor', tier: 'premium' });
  key = created.key;
  accountId = created.accountId;
}, 180_000);
afterAll(async () => {
  await app?.close();
  await admet?.close();
  await pool?.close();
  await store?.close();
});

const qs = (params: Record<string, string | number | (string | number)[]>) =>
  Object.entries(params)
    .flatMap(([k, v]) => (Array.isArray(v) ? v : [v]).map((x) => `${k}=${encodeURIComponent(String(x))}`))
    .join('&');
const get = (url: string) => app.inject({ method: 'GET', url, headers: { 'X-API-Key': key } });

describe('GET /predict_array', () => {
  it('answers equal-length columns: smiles, the 22 ADMET keys, the 11 descriptors, then the domain flags', async () => {
    const inputs = fixture.smiles.slice(0, 5);
    const res = await get(`/predict_array?${qs({ search_input: inputs, filename: '' })}`);
    expect(res.statusCode).toBe(200);
    const body = res.json() as Record<string, unknown[]>;
    expect(Object.keys(body)).toEqual([
      'smiles',
      'search_input',
      ...ADMET_NAMES,
      ...DESCRIPTOR_NAMES,
      'in_domain',
      'admet_out_of_domain',
      'error',
    ]);
    for (const col of Object.values(body)) expect(col).toHaveLength(5);
    expect(body.search_input).toEqual(inputs);
    for (const name of ADMET_NAMES) {
      body[name].forEach((v, i) =>
        expect(
          Math.abs((v as number) - fixture.endpoints[name].score[i]),
          `${name} ${i}`,
        ).toBeLessThanOrEqual(1e-5 * Math.max(1, Math.abs(fixture.endpoints[name].score[i]))),
      );
    }
    inputs.forEach((_, i) => {
      const flagged = ADMET_NAMES.filter((n) => fixture.endpoints[n].in_domain[i] === 0);
      expect(body.admet_out_of_domain[i]).toEqual(flagged);
      expect(body.in_domain[i]).toBe(flagged.length === 0);
    });
    expect(inputs.some((_, i) => (body.admet_out_of_domain[i] as string[]).length > 0)).toBe(true);
  });

  it('leaves out the ADMET or descriptor columns when asked, accepting True/False', async () => {
    const onlyDesc = (
      await get(`/predict_array?${qs({ search_input: 'CCO', properties: 'False', filename: '' })}`)
    ).json();
    expect(Object.keys(onlyDesc)).toEqual(['smiles', 'search_input', ...DESCRIPTOR_NAMES, 'error']);
    expect(onlyDesc.molecular_weight[0]).toBeCloseTo(46.069, 3);
    const onlyProps = (
      await get(`/predict_array?${qs({ search_input: 'CCO', descriptors: 'false', filename: '' })}`)
    ).json();
    expect(Object.keys(onlyProps)).toEqual([
      'smiles',
      'search_input',
      ...ADMET_NAMES,
      'in_domain',
      'admet_out_of_domain',
      'error',
    ]);
  });

  it('gives a bad SMILES a per-row error with null values, keeping the other rows', async () => {
    const res = await get(
      `/predict_array?${qs({ search_input: ['CCO', 'C1CC', 'c1ccccc1'], filename: '' })}`,
    );
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.smiles).toEqual(['CCO', null, 'c1ccccc1']);
    expect(body.error).toEqual([null, 'unparsable SMILES', null]);
    expect(body.herg[1]).toBeNull();
    expect(body.in_domain[1]).toBeNull();
    expect(typeof body.herg[2]).toBe('number');
  });

  it('rejects more than 1000 molecules, and none, with a 422 naming search_input', async () => {
    const many = await app.inject({
      method: 'GET',
      url: `/predict_array?${qs({ search_input: Array.from({ length: 1001 }, () => 'C') })}`,
      headers: { 'X-API-Key': key },
    });
    expect(many.statusCode).toBe(422);
    expect(many.json().detail[0].loc).toEqual(['query', 'search_input']);
    const none = await get('/predict_array');
    expect(none.statusCode).toBe(422);
  });

  it('writes the table as CSV to exports/<filename>.csv in the caller area, served by /exports', async () => {
    const res = await get(
      `/predict_array?${qs({ search_input: ['CCO', 'c1ccccc1O'], filename: '../my run/props' })}`,
    );
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-export-path']).toBe('exports/props.csv');
    expect(res.headers['x-export-url']).toBe('http://test.local/exports/props.csv');
    const file = await get('/exports/props.csv');
    expect(file.statusCode).toBe(200);
    const lines = file.body.trim().split('\r\n');
    expect(lines[0].split(',').slice(0, 3)).toEqual(['smiles', 'search_input', 'caco2_wang']);
    expect(lines).toHaveLength(3);
    expect(lines[2].startsWith('Oc1ccccc1,c1ccccc1O,')).toBe(true);
    expect((await get('/exports/other.csv')).statusCode).toBe(404);
    expect(exportFileName('a b/c?.csv')).toBe('c_.csv');
    expect(await objects.head(`users/${accountId}/files/exports/props.csv`)).toBeGreaterThan(0);
  });
});

describe('GET /molsearch properties=true', () => {
  it('returns the 22 catalog predictions, then the 11 descriptors, and the out-of-domain endpoints', async () => {
    const res = await get(
      `/molsearch?${qs({ search_input: fixture.smiles[3], search_type: 'morgan', db_names: 'admetcat', n_neighbors: 5, filtering: [] })}`,
    );
    expect(res.statusCode).toBe(200);
    const rows = res.json().neighbors as Record<string, unknown>[];
    expect(rows.length).toBe(5);
    const keys = Object.keys(rows[0]);
    const props = keys.filter(
      (k) =>
        (ADMET_NAMES as readonly string[]).includes(k) || (DESCRIPTOR_NAMES as readonly string[]).includes(k),
    );
    expect(props).toEqual([...ADMET_NAMES, ...DESCRIPTOR_NAMES]);
    for (const row of rows) {
      const i = Number(String(row.id).slice(1));
      for (const name of ADMET_NAMES)
        expect(Math.abs((row[name] as number) - fixture.endpoints[name].score[i])).toBeLessThanOrEqual(
          1e-5 * Math.max(1, Math.abs(fixture.endpoints[name].score[i])),
        );
      expect(row.admet_out_of_domain).toEqual(
        ADMET_NAMES.filter((n) => fixture.endpoints[n].in_domain[i] === 0),
      );
    }
  });

  it('answers null predictions for a catalog built without them', async () => {
    const res = await get(
      `/molsearch?${qs({ search_input: fixture.smiles[3], search_type: 'morgan', db_names: 'plaincat', n_neighbors: 3 })}`,
    );
    const row = res.json().neighbors[0];
    expect(ADMET_NAMES.every((n) => row[n] === null)).toBe(true);
    expect(row.admet_out_of_domain).toBeNull();
    expect(res.json().remarks).toContain('not available');
  });
});

describe('GET /predict (one molecule)', () => {
  it('answers the onnxruntime reference scores and the domain flags as one object', async () => {
    const i = 2;
    const res = await get(`/predict?${qs({ search_input: fixture.smiles[i] })}`);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Object.keys(body.properties)).toEqual(ADMET_NAMES);
    expect(Object.keys(body.descriptors)).toEqual(DESCRIPTOR_NAMES);
    for (const name of ADMET_NAMES)
      expect(Math.abs(body.properties[name] - fixture.endpoints[name].score[i])).toBeLessThanOrEqual(
        1e-5 * Math.max(1, Math.abs(fixture.endpoints[name].score[i])),
      );
    const flagged = ADMET_NAMES.filter((n) => fixture.endpoints[n].in_domain[i] === 0);
    expect(body.out_of_domain).toEqual(flagged);
    expect(body.in_domain).toBe(flagged.length === 0);
  });

  it('equals the /predict_array row and leaves out what is not asked for', async () => {
    const one = (await get(`/predict?${qs({ search_input: 'CCO', properties: 'False' })}`)).json();
    expect(one.properties).toBeUndefined();
    expect(one.canonical_smiles).toBe('CCO');
    expect(one.descriptors.molecular_weight).toBeCloseTo(46.069, 3);
  });

  it('is a 422 naming search_input for an unparsable or missing SMILES', async () => {
    for (const url of [`/predict?${qs({ search_input: 'C1CC' })}`, '/predict', '/predict?search_input=']) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(422);
      expect(res.json().detail[0].loc).toEqual(['query', 'search_input']);
    }
  });
});
