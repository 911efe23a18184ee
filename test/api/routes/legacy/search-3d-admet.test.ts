import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Chem3dWorker } from '../../../../platform/chem3d/process.ts';
import { ADMET_NAMES } from '../../../../engine/catalog/index.ts';
import { ASPIRIN, startThreeDStack } from '../../../support/three-d-stack.ts';
import { call, waitStatus, type TestStack } from '../../../workflows/support/stack.ts';

// Real parts (test/support/three-d-stack.ts): the service stack, the Python chem3d worker, a
// catalog of ChEMBL drugs with its ADMET predictions (the shipped models), made 3D-ready.
let s: TestStack;
let py: Chem3dWorker;

beforeAll(async () => {
  ({ s, py } = await startThreeDStack('admet3d', 12, { admet: true }));
}, 600_000);

afterAll(async () => {
  await py?.stop();
  await s?.stack.stop();
});

type Row = Record<string, unknown> & { id: string };
const PROPERTY_COLUMNS = [...ADMET_NAMES, 'admet_out_of_domain'];
const q = encodeURIComponent;

async function neighbors(query: string): Promise<{ rows: Row[]; remarks: string }> {
  const r = await call(s, 'GET', query, s.keyA);
  expect(r.status, r.raw).toBe(200);
  return { rows: r.body.neighbors, remarks: r.body.remarks };
}

/** The property columns of a row (every ADMET key and admet_out_of_domain), by name. */
const propertiesOf = (row: Row) => Object.fromEntries(PROPERTY_COLUMNS.map((k) => [k, row[k]]));

describe('3D /molsearch rows with properties=true (the default)', () => {
  let morgan: Map<string, Row>;

  beforeAll(async () => {
    const m = await neighbors(`/molsearch?search_input=${q(ASPIRIN)}&search_type=morgan&db_names=admet3d`);
    morgan = new Map(m.rows.map((r) => [r.id, r]));
  });

  it('the Morgan rows carry predicted ADMET values (the comparison below is not between nulls)', () => {
    const aspirin = morgan.get('ASPIRIN')!;
    for (const k of ADMET_NAMES) expect(aspirin, k).toHaveProperty(k);
    expect(ADMET_NAMES.some((k) => typeof aspirin[k] === 'number')).toBe(true);
    expect(aspirin).toHaveProperty('admet_out_of_domain');
  });

  it.each([
    ['espsim_shape', 'search_type=espsim_shape'],
    ['espsim_electrostatic', 'search_type=espsim_electrostatic'],
    ['consensus', 'search_type=consensus'],
    ['several types in one call', 'search_type=espsim_shape&search_type=morgan'],
  ])('%s rows carry the Morgan row’s ADMET columns with its values', async (_, types) => {
    const r = await neighbors(
      `/molsearch?search_input=${q(ASPIRIN)}&${types}&db_names=admet3d&n_neighbors=5`,
    );
    expect(r.rows.length).toBeGreaterThan(0);
    for (const row of r.rows) {
      const same = morgan.get(row.id);
      for (const k of PROPERTY_COLUMNS) expect(row, `${row.id} ${k}`).toHaveProperty(k);
      if (same) expect(propertiesOf(row), row.id).toEqual(propertiesOf(same));
    }
    expect(propertiesOf(r.rows.find((x) => x.id === 'ASPIRIN')!)).toEqual(
      propertiesOf(morgan.get('ASPIRIN')!),
    );
  });

  it('leave the ADMET columns out with properties=false, as a morgan search does', async () => {
    const r = await neighbors(
      `/molsearch?search_input=${q(ASPIRIN)}&search_type=espsim_shape&db_names=admet3d&properties=false&n_neighbors=3`,
    );
    const m = await neighbors(
      `/molsearch?search_input=${q(ASPIRIN)}&search_type=morgan&db_names=admet3d&properties=false&n_neighbors=3`,
    );
    for (const row of [...r.rows, ...m.rows])
      for (const k of PROPERTY_COLUMNS) expect(row).not.toHaveProperty(k);
  });

  it('/molsearch_embedding with a 3D embedding and properties=true carries the same ADMET columns', async () => {
    const e = await call(s, 'GET', `/embeddings?search_input=${q(ASPIRIN)}&search_type=espsim_shape`, s.keyA);
    expect(e.status, e.raw).toBe(200);
    const r = await call(
      s,
      'POST',
      '/molsearch_embedding?search_type=espsim_shape&db_names=admet3d&n_neighbors=3&properties=true',
      s.keyA,
      { embedding: e.body.embeddings[0].flat() },
    );
    expect(r.status, r.raw).toBe(200);
    const top = r.body.neighbors[0] as Row;
    expect(top.id).toBe('ASPIRIN');
    expect(propertiesOf(top)).toEqual(propertiesOf(morgan.get('ASPIRIN')!));
  });
});

describe('POST /api/v2/search_cheese on a catalog', () => {
  it('gives each hit the properties and predicted properties /api/v2/search gives the same product, by default', async () => {
    const body = { query_smiles: ASPIRIN, database_id: 'admet3d', limit: 5 };
    const plain = await call(s, 'POST', '/api/v2/search', s.keyA, body);
    expect(plain.status, plain.raw).toBe(200);
    type V2Hit = { product_id: string; properties?: object; predicted_properties?: Record<string, unknown> };
    const byId = new Map((plain.body.results as V2Hit[]).map((h) => [h.product_id, h]));
    for (const scorer of ['shape', 'morgan']) {
      const r = await call(s, 'POST', '/api/v2/search_cheese', s.keyA, { ...body, scorer });
      expect(r.status, r.raw).toBe(200);
      const hit = (r.body.results as V2Hit[]).find((h) => h.product_id === 'ASPIRIN')!;
      expect(hit.properties, scorer).toEqual(byId.get('ASPIRIN')!.properties);
      expect(hit.predicted_properties, scorer).toEqual(byId.get('ASPIRIN')!.predicted_properties);
    }
    // Not between empty maps: the catalog has its ADMET predictions.
    expect(Object.values(byId.get('ASPIRIN')!.predicted_properties!).some((v) => typeof v === 'number')).toBe(
      true,
    );
  });
});

describe('3D molsearch jobs', () => {
  /** Page 0 of a finished job of `type` over admet3d, with its property columns. */
  async function jobPage(type: string): Promise<Record<string, unknown[]>> {
    const r = await call(
      s,
      'GET',
      `/submit_molsearch?search_input=${q(ASPIRIN)}&search_type=${type}&db_names=admet3d&n_neighbors=20`,
      s.keyA,
    );
    expect(r.status, r.raw).toBe(200);
    expect(await waitStatus(s, s.keyA, r.body, 180_000)).toBe('SUCCESS');
    const p = await call(
      s,
      'POST',
      `/get_molsearch_page?job_name=${r.body}&page_num=0&page_size=30&include_properties=true`,
      s.keyA,
    );
    expect(p.status, p.raw).toBe(200);
    return p.body;
  }

  it('page the property columns of a morgan job, with its values for the same molecule', async () => {
    const [shape, morgan] = [await jobPage('espsim_shape'), await jobPage('morgan')];
    const props = Object.keys(morgan).filter((k) => !['id', 'smiles', 'database', 'db_id'].includes(k));
    for (const k of ADMET_NAMES) expect(props).toContain(k);
    for (const k of props.filter((k) => k !== 'similarity' && k !== 'in_prop_range')) {
      const at = (p: Record<string, unknown[]>) => p[k][p.id.indexOf('ASPIRIN')];
      expect(at(shape), k).toEqual(at(morgan));
    }
    expect(ADMET_NAMES.some((k) => typeof morgan[k][morgan.id.indexOf('ASPIRIN')] === 'number')).toBe(true);
  });
});
