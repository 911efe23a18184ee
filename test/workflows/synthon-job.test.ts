import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { gunzipSync } from 'node:zlib';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { getRDKit, type RDKitModule } from '../../engine/chem/rdkit.ts';
import { decodeProductId } from '../../engine/synthons/assemble.ts';
import { writeSyntheticCatalog } from '../../testkit/synthetic-catalog.ts';
import { scoreShortlist } from '../../engine/shape/index.ts';
import { SYNTHON_3D_MULTIPLIER } from '../../api/services/synthon-jobs.ts';
import { SYNTHON_3D_BATCH } from '../../workflows/synthon-job-3d.ts';
import { Client, Connection } from '@temporalio/client';
import { buildTestSpaces } from './support/spaces.ts';
import { embedSmiles, startTestChem3d } from '../support/chem3d.ts';
import type { Chem3dWorker } from '../../platform/chem3d/process.ts';
import { call, stackEnv, startTestStack, tempDir, waitStatus, type TestStack } from './support/stack.ts';

// Real parts: the shared Temporal dev server, PGlite, the local object store, the bundled Idorsia
// toy space and two RDKit test spaces built into DATA_DIR/spaces, the API through inject().
// Expected results come from the spaces' full enumerations (RDKit, test/fixtures/synthons).
let s: TestStack;
let rd: RDKitModule;
let prefix: string;
let py: Chem3dWorker;
const FIX = new URL('../fixtures/synthons/', import.meta.url).pathname;

beforeAll(async () => {
  const dir = await tempDir('synthon-jobs');
  const catalogDir = join(dir, 'catalogs');
  await writeSyntheticCatalog(catalogDir, 'synth', 2_000, 1_000);
  await buildTestSpaces(join(dir, 'data'));
  rd = await getRDKit();
  prefix = `syn-${randomBytes(4).toString('hex')}`;
  // The real Python chem3d worker: shape and esp jobs embed their products on it.
  py = await startTestChem3d(inject('temporalAddress'), prefix);
  s = await startTestStack(stackEnv(join(dir, 'data'), catalogDir, inject('temporalAddress'), prefix));
}, 300_000);

afterAll(async () => {
  await py?.stop();
  await s?.stack.stop();
});

const submit = async (params: string) => {
  const r = await call(s, 'POST', `/submit_synthongpt_job?${params}`, s.keyA, {});
  expect(r.status, r.raw).toBe(200);
  expect(r.body).toMatch(/^job_[0-9A-Z]{26}$/);
  return r.body as string;
};
const page = async (job: string, extra = '') =>
  (
    await call(
      s,
      'POST',
      `/get_molsearch_page?job_name=${job}&page_size=100000&page_num=0${extra}`,
      s.keyA,
      {},
    )
  ).body;

/** `smiles` embedded by the chem3d worker as the jobs embed products (null: not embeddable). */
const embed = (smiles: string) => embedSmiles(inject('temporalAddress'), prefix, smiles);

/** Activity types the workflow `id` scheduled, with how many times (from its Temporal history). */
async function scheduledActivities(id: string): Promise<Map<string, number>> {
  const connection = await Connection.connect({ address: inject('temporalAddress') });
  try {
    const history = await new Client({ connection }).workflow.getHandle(id).fetchHistory();
    const out = new Map<string, number>();
    for (const e of history.events ?? []) {
      const name = e.activityTaskScheduledEventAttributes?.activityType?.name;
      if (name) out.set(name, (out.get(name) ?? 0) + 1);
    }
    return out;
  } finally {
    await connection.close();
  }
}

/** The floors (0: none) the workflow `id` gave its synthonScan activities, in scheduling order. */
async function scanFloors(id: string): Promise<number[]> {
  const connection = await Connection.connect({ address: inject('temporalAddress') });
  try {
    const history = await new Client({ connection }).workflow.getHandle(id).fetchHistory();
    const out: number[] = [];
    for (const e of history.events ?? []) {
      const a = e.activityTaskScheduledEventAttributes;
      if (a?.activityType?.name !== 'synthonScan') continue;
      const input = JSON.parse(new TextDecoder().decode(a.input!.payloads![0].data!)) as {
        slice: { floor?: number };
      };
      out.push(input.slice.floor ?? 0);
    }
    return out;
  } finally {
    await connection.close();
  }
}

/** Products of an enumeration file (`SMILES name` lines, RDKit's reference enumerations). */
async function enumeration(file: string): Promise<string[]> {
  const raw = await readFile(join(FIX, file));
  const text = file.endsWith('.gz') ? gunzipSync(raw).toString() : raw.toString();
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => l.split(/\s+/)[0]);
}

function canon(smiles: string): string {
  const m = rd.get_mol(smiles)!;
  try {
    return m.get_smiles();
  } finally {
    m.delete();
  }
}

/** Brute force: the canonical products that contain `query` (sub) or that `query` contains (super). */
function bruteForce(products: string[], query: string, sub: boolean): string[] {
  const q = sub ? (rd.get_qmol(query) ?? rd.get_mol(query))! : rd.get_mol(query)!;
  const out: string[] = [];
  for (const p of products) {
    const m = rd.get_mol(p)!;
    const hit = JSON.parse(sub ? m.get_substruct_match(q) : q.get_substruct_match(m)).atoms?.length;
    if (hit) out.push(m.get_smiles());
    m.delete();
  }
  q.delete();
  return out.sort();
}

describe('synthon jobs (/submit_synthongpt_job)', () => {
  it('similarity: the top hits equal brute force over the Idorsia toy space enumeration', async () => {
    const ref = JSON.parse(await readFile(join(FIX, 'idorsia-topk-reference.json'), 'utf8')) as {
      k: number;
      entries: Array<{ query: string; top: Array<[string, number, string]> }>;
    };
    for (const e of ref.entries.slice(0, 2)) {
      const job = await submit(
        `search_input=${encodeURIComponent(e.query)}&db_name=idorsia_toy_space&synthon_scorer=morgan&sample_size=${ref.k}&include_properties=false`,
      );
      expect(await waitStatus(s, s.keyA, job, 120_000)).toBe('SUCCESS');
      const p = await page(job);
      const want = e.top.slice(0, ref.k);
      expect(p.id).toHaveLength(ref.k);
      p.similarity.forEach((x: number, i: number) => expect(Math.abs(x - want[i][1])).toBeLessThan(2e-5));
      expect(p.smiles.slice().sort()).toEqual(want.map((x) => canon(x[0])).sort());
      expect(new Set(p.database)).toEqual(new Set(['idorsia_toy_space']));
      const info = (await call(s, 'GET', `/job_info?job_name=${job}`, s.keyA)).body;
      expect(info).toMatchObject({ status: 'SUCCESS', kind: 'synthon', rows: ref.k });
      // One slice per reaction of the toy space (6), every one counted.
      expect(info.progress).toEqual({ shards_done: 6, shards_total: 6, fraction: 1 });
      // Four slices run at once; the last two search only down to the k-th best score of the
      // slices finished before them (and the result above still equals brute force).
      const floors = await scanFloors(job);
      expect(floors.slice(0, 4)).toEqual([0, 0, 0, 0]);
      const later = floors.slice(4).filter((f) => f > 0);
      expect(later.length).toBeGreaterThan(0);
      for (const f of later) expect(f).toBeLessThanOrEqual(want[ref.k - 1][1]);
    }
  }, 300_000);

  it('similarity with a query dissimilar to the whole space: the brute-force k best, not 0', async () => {
    const ref = JSON.parse(await readFile(join(FIX, 'idorsia-dissimilar-reference.json'), 'utf8')) as {
      entries: Array<{ query: string; k: number; top: Array<[string, number]> }>;
    };
    const e = ref.entries[0];
    const job = await submit(
      `search_input=${encodeURIComponent(e.query)}&db_name=idorsia_toy_space&synthon_scorer=morgan&sample_size=${e.k}&include_properties=false`,
    );
    expect(await waitStatus(s, s.keyA, job, 120_000)).toBe('SUCCESS');
    const p = await page(job);
    expect(p.id).toHaveLength(e.k);
    const want = e.top.slice(0, e.k);
    p.similarity.forEach((x: number, i: number) => expect(Math.abs(x - want[i][1])).toBeLessThan(2e-5));
    // Ties with the k-th may come in any order: each hit is a brute-force product with its score.
    const scoreOf = new Map(e.top.map(([smi, v]) => [canon(smi), v]));
    p.smiles.forEach((smi: string, i: number) =>
      expect(Math.abs(scoreOf.get(smi)! - p.similarity[i])).toBeLessThan(2e-5),
    );
  }, 300_000);

  it('substructure and superstructure: the same product set as brute force over the enumerations', async () => {
    for (const [space, file, query] of [
      ['rdkit_urea_space', 'urea_space_enum.smi', 'c1ccsc1'],
      ['rdkit_urea_space', 'urea_space_enum.smi', 'O=C(N)NC1COC1'],
      ['rdkit_amide_space', 'amide_space_enum.smi', 'C(=O)N'],
    ] as const) {
      const products = await enumeration(file);
      const job = await submit(
        `search_input=${encodeURIComponent(query)}&db_name=${space}&search_mode=substructure&search_quality=1000`,
      );
      expect(await waitStatus(s, s.keyA, job, 120_000)).toBe('SUCCESS');
      const want = bruteForce(products, query, true);
      expect(want.length).toBeGreaterThan(0);
      expect((await page(job)).smiles.slice().sort(), `${space} ${query}`).toEqual(want);
    }
    // Superstructure: the products a query molecule contains (here: one product of the space).
    const products = await enumeration('amide_space_enum.smi');
    const job = await submit(
      `search_input=${encodeURIComponent(products[0])}&db_name=rdkit_amide_space&search_mode=superstructure`,
    );
    expect(await waitStatus(s, s.keyA, job, 120_000)).toBe('SUCCESS');
    const got = (await page(job)).smiles.slice().sort();
    expect(got).toEqual(bruteForce(products, products[0], false));
    expect(got).toContain(canon(products[0]));
  }, 300_000);

  it('honours the SMARTS prefilter (include keeps matching products, exclude the others)', async () => {
    const query = encodeURIComponent('C(=O)N');
    const all = await submit(`search_input=${query}&db_name=rdkit_urea_space&search_mode=substructure`);
    const inc = await submit(
      `search_input=${query}&db_name=rdkit_urea_space&search_mode=substructure&smarts_prefilter_pattern_smarts=${encodeURIComponent('c1ccsc1')}`,
    );
    const exc = await submit(
      `search_input=${query}&db_name=rdkit_urea_space&search_mode=substructure&smarts_prefilter_pattern_smarts=${encodeURIComponent('c1ccsc1')}&smarts_prefilter_mode=exclude`,
    );
    for (const j of [all, inc, exc]) expect(await waitStatus(s, s.keyA, j, 120_000)).toBe('SUCCESS');
    const [a, i, x] = [await page(all), await page(inc), await page(exc)];
    const thio = bruteForce(a.smiles, 'c1ccsc1', true);
    expect(i.smiles.slice().sort()).toEqual(thio);
    expect(x.smiles.length + i.smiles.length).toBe(a.smiles.length);
    expect(thio.length).toBeGreaterThan(0);
    expect(x.smiles.length).toBeGreaterThan(0);
  }, 120_000);

  it('pages with and without include_synthons; downloads carry the synthon columns', async () => {
    const job = await submit(
      `search_input=${encodeURIComponent('O=C(N)NC1COC1')}&db_name=rdkit_urea_space&search_mode=substructure`,
    );
    expect(await waitStatus(s, s.keyA, job, 120_000)).toBe('SUCCESS');
    const plain = await page(job);
    expect(Object.keys(plain)).toEqual(['smiles', 'id', 'database', 'db_id', 'similarity', 'in_prop_range']);
    const withSyn = await page(job, '&include_synthons=true');
    expect(Object.keys(withSyn).slice(-3)).toEqual(['product_id', 'reaction_id', 'synthons']);
    const n = withSyn.id.length;
    expect(n).toBeGreaterThan(0);
    for (const c of Object.keys(withSyn)) expect(withSyn[c]).toHaveLength(n);
    for (let i = 0; i < n; i++) {
      const d = decodeProductId(withSyn.product_id[i])!;
      expect(withSyn.reaction_id[i]).toBe(d.reactionId);
      expect(withSyn.synthons[i].map((x: { synthon_id: string }) => x.synthon_id)).toEqual(d.synthonIds);
      expect(withSyn.synthons[i].map((x: { slot: number }) => x.slot)).toEqual([0, 1, 2]);
    }
    // Paged in two halves: the same rows, no id twice.
    const half = Math.ceil(n / 2);
    const p0 = (
      await call(
        s,
        'POST',
        `/get_molsearch_page?job_name=${job}&page_size=${half}&page_num=0&include_synthons=true`,
        s.keyA,
        {},
      )
    ).body;
    const p1 = (
      await call(
        s,
        'POST',
        `/get_molsearch_page?job_name=${job}&page_size=${half}&page_num=1&include_synthons=true`,
        s.keyA,
        {},
      )
    ).body;
    expect([...p0.id, ...p1.id]).toEqual(withSyn.id);
    expect([...p0.synthons, ...p1.synthons]).toEqual(withSyn.synthons);

    const prep = await call(
      s,
      'POST',
      `/prepare_download?job_name=${job}&file_format=csv&file_format=json`,
      s.keyA,
      {},
    );
    expect(prep.status, prep.raw).toBe(200);
    let view = prep.body;
    for (let t = 0; t < 300 && !['READY', 'FAILURE'].includes(view.status); t++) {
      await new Promise((r) => setTimeout(r, 200));
      view = (await call(s, 'GET', `/download_link?download_id=${prep.body.download_id}`, s.keyA)).body;
    }
    expect(view.status).toBe('READY');
    const csv = await s.stack.app.inject({
      method: 'GET',
      url: `/downloads/${prep.body.download_id}/csv`,
      headers: { 'x-api-key': s.keyA },
    });
    const lines = csv.body.trim().split(/\r?\n/);
    expect(lines[0]).toContain('product_id,reaction_id,synthon_1_id,synthon_1_smiles');
    expect(lines).toHaveLength(n + 1);
    const json = await s.stack.app.inject({
      method: 'GET',
      url: `/downloads/${prep.body.download_id}/json`,
      headers: { 'x-api-key': s.keyA },
    });
    const rows = JSON.parse(json.body) as Record<string, unknown>[];
    expect(rows.map((r) => r.product_id)).toEqual(withSyn.product_id);
    expect(rows[0].synthon_3_id).toBe(withSyn.synthons[0][2].synthon_id);
    expect(rows[0].synthon_4_id).toBeNull();
  }, 180_000);

  it('lists synthon jobs in /user_jobs and revokes one', async () => {
    const job = await submit(
      `search_input=${encodeURIComponent('C(=O)N')}&db_name=idorsia_toy_space&search_mode=substructure`,
    );
    const r = await call(s, 'POST', `/revoke_job?job_name=${job}`, s.keyA);
    expect(r.body.status).toBe('REVOKED');
    expect(await waitStatus(s, s.keyA, job)).toBe('REVOKED');
    const jobs = (await call(s, 'GET', '/user_jobs', s.keyA)).body as { job_name: string; kind: string }[];
    expect(jobs.find((j) => j.job_name === job)?.kind).toBe('synthon');
    expect((await call(s, 'GET', `/job_status?job_name=${job}`, s.keyB)).status).toBe(404);
  });

  it('search_type=synthongpt on the other legacy endpoints searches spaces', async () => {
    const ref = JSON.parse(await readFile(join(FIX, 'idorsia-topk-reference.json'), 'utf8')) as {
      entries: Array<{ query: string; top: Array<[string, number, string]> }>;
    };
    const e = ref.entries[0];
    const sub = await call(
      s,
      'GET',
      `/submit_molsearch?search_input=${encodeURIComponent(e.query)}&search_type=synthongpt&db_names=idorsia_toy_space&n_neighbors=5`,
      s.keyA,
    );
    expect(sub.status, sub.raw).toBe(200);
    expect(await waitStatus(s, s.keyA, sub.body, 120_000)).toBe('SUCCESS');
    const p = await page(sub.body, '&include_synthons=true');
    expect(p.similarity).toHaveLength(5);
    p.similarity.forEach((x: number, i: number) => expect(Math.abs(x - e.top[i][1])).toBeLessThan(2e-5));
    expect(p.reaction_id.every((r: string) => r.length > 0)).toBe(true);
    const mixed = await call(
      s,
      'GET',
      `/submit_molsearch?search_input=CCO&search_type=synthongpt&db_names=idorsia_toy_space&db_names=synth`,
      s.keyA,
    );
    expect(mixed.status).toBe(422);

    const batch = await call(
      s,
      'GET',
      `/batch_search?search_type=synthongpt&search_mode=batch&db_names=idorsia_toy_space&n_neighbors=3&search_input=${encodeURIComponent(e.query)}&search_input=CCO`,
      s.keyA,
    );
    expect(batch.status, batch.raw).toBe(200);
    expect(batch.body).toHaveLength(2);
    const first = JSON.stringify(batch.body[0]);
    for (const [smiles] of e.top.slice(0, 3)) expect(first).toContain(canon(smiles));
    // A bad input is refused before any search, naming its index.
    const bad = await call(
      s,
      'GET',
      `/batch_search?search_type=synthongpt&search_mode=batch&db_names=idorsia_toy_space&search_input=CCO&search_input=C1CC(`,
      s.keyA,
    );
    expect(bad.status, bad.raw).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['query', 'search_input', 1]);
    // /search_file: every SMILES of an uploaded file searched on the space.
    const up = await s.stack.app.inject({
      method: 'POST',
      url: '/upload_file?path=in/queries.csv',
      headers: { 'x-api-key': s.keyA, 'content-type': 'text/csv' },
      payload: `SMILES\n${e.query}\n`,
    });
    expect(up.statusCode, up.body).toBe(200);
    const file = await call(
      s,
      'GET',
      '/search_file?input_file=in/queries.csv&search_type=synthongpt&db_names=idorsia_toy_space&n_neighbors=3&output_file=out/hits.csv',
      s.keyA,
    );
    expect(file.status, file.raw).toBe(200);
    expect(file.body.results[0].neighbors.map((n: { smiles: string }) => n.smiles)).toEqual(
      e.top.slice(0, 3).map((x) => canon(x[0])),
    );
    const centroid = await call(
      s,
      'GET',
      `/batch_search?search_type=synthongpt&search_mode=centroid&db_names=idorsia_toy_space&search_input=CCO&search_input=CCN`,
      s.keyA,
    );
    expect(centroid.status).toBe(422);
  }, 180_000);

  it('answers 422 naming the field for bad input, unknown spaces and limits', async () => {
    const cases: Array<[string, (string | number)[]]> = [
      ['search_input=C1CC&synthon_scorer=morgan&db_name=idorsia_toy_space', ['query', 'search_input']],
      ['search_input=%5B%23&search_mode=substructure&db_name=idorsia_toy_space', ['query', 'search_input']],
      // SMARTS' any bond: RDKit's SMILES parser reads it, but a superstructure query is a molecule.
      [
        'search_input=%5B%236%5D~%5B%237%5D&search_mode=superstructure&db_name=idorsia_toy_space',
        ['query', 'search_input'],
      ],
      [
        'search_input=CCO&synthon_scorer=morgan&smarts_prefilter_pattern_smarts=%5B%23',
        ['query', 'smarts_prefilter_pattern_smarts'],
      ],
      [
        'search_input=CCO&synthon_scorer=morgan&smarts_prefilter_pattern_id=nope',
        ['query', 'smarts_prefilter_pattern_id'],
      ],
      ['search_input=CCO&synthon_scorer=morgan&db_name=no_such_space', ['query', 'db_name']],
      ['search_input=CCO&synthon_scorer=morgan&db_name=synth', ['query', 'db_name']],
      ['search_input=CCO&synthon_scorer=shape&search_quality=10000', ['query', 'search_quality']],
      ['search_input=CCO&synthon_scorer=morgan&sample_size=100001', ['query', 'sample_size']],
      ['search_input=CCO&synthon_scorer=morgan&search_quality=5', ['query', 'search_quality']],
      // Too long, or too many atoms for RDKit's WebAssembly stack (a 3,000-atom substructure query
      // was accepted and its trap broke every later job: user trial).
      [`search_input=${'C'.repeat(1200)}&search_mode=substructure`, ['query', 'search_input']],
      [`search_input=${'C'.repeat(600)}&search_mode=substructure`, ['query', 'search_input']],
      [
        `search_input=CCO&synthon_scorer=morgan&smarts_prefilter_pattern_smarts=${'C'.repeat(600)}`,
        ['query', 'smarts_prefilter_pattern_smarts'],
      ],
    ];
    for (const [q, loc] of cases) {
      const r = await call(s, 'POST', `/submit_synthongpt_job?${q}`, s.keyA, {});
      expect(r.status, q).toBe(422);
      expect(r.body.detail[0].loc, q).toEqual(loc);
    }
    const many = await call(
      s,
      'POST',
      `/submit_synthongpt_job?search_input=${'C'.repeat(600)}&search_mode=substructure`,
      s.keyA,
      {},
    );
    expect(many.body.detail[0].msg).toMatch(/more than 500 atoms \(600\)/);
  });

  it('the default scorer (shape) and esp: the Morgan shortlist ranked by the exact 3D score', async () => {
    // A query whose shortlist embeds in 3D: the top products of idorsia-topk-reference.json's query
    // all keep an open connector ([*:3]), which the chem3d worker cannot embed.
    const ref = JSON.parse(await readFile(join(FIX, 'similarity-reference.json'), 'utf8')) as {
      spaces: Record<string, Array<{ query: string }>>;
    };
    const query = ref.spaces.idorsia_toy_space_a[0].query;
    const k = 5;
    const short = k * SYNTHON_3D_MULTIPLIER;
    const q = `search_input=${encodeURIComponent(query)}&db_name=idorsia_toy_space&include_properties=false`;
    // The shortlist the 3D jobs embed: the best k × multiplier products by Morgan.
    const morganJob = await submit(`${q}&synthon_scorer=morgan&sample_size=${short}`);
    expect(await waitStatus(s, s.keyA, morganJob, 120_000)).toBe('SUCCESS');
    const shortlist = (await page(morganJob)).smiles as string[];
    expect(shortlist).toHaveLength(short);
    // Reference scores: the same embeddings (chem3d worker, 10 conformers, seed 42), scored here.
    const qMol = await embed(query);
    const ref3d = new Map<string, { shape: number; esp: number }>();
    for (const smi of shortlist) {
      const m = await embed(smi);
      if (m) ref3d.set(smi, scoreShortlist(qMol!, [m], { metric: 'shape', k: 1 })[0]);
    }
    // Enough embeddable products that the 3D ranking is a real one (not two empty lists).
    expect(ref3d.size).toBeGreaterThanOrEqual(2 * k);
    // No synthon_scorer: the interface's default, shape.
    for (const [metric, extra] of [
      ['shape', ''],
      ['esp', '&synthon_scorer=esp'],
    ] as const) {
      const job = await submit(`${q}&sample_size=${k}${extra}`);
      expect(await waitStatus(s, s.keyA, job, 300_000), metric).toBe('SUCCESS');
      // The query is embedded once, by the submission's check: the job's own history schedules
      // no query embedding, only the shortlist's batches.
      const acts = await scheduledActivities(job);
      expect(acts.get('chem3dEmbedQuery') ?? 0, metric).toBe(0);
      expect(acts.get('chem3dEmbedBatch'), metric).toBe(Math.ceil(short / SYNTHON_3D_BATCH));
      // The 3D stage is a stage of its own in the progress, its products counted.
      const info = (await call(s, 'GET', `/job_info?job_name=${job}`, s.keyA)).body;
      expect(info.progress, metric).toMatchObject({
        stage: 'rerank_3d',
        shards_done: shortlist.length,
        shards_total: shortlist.length,
        fraction: 1,
      });
      const p = await page(job);
      const want = [...ref3d]
        .map(([smi, v]) => ({ smi, v: v[metric], i: shortlist.indexOf(smi) }))
        .sort((a, b) => b.v - a.v || a.i - b.i)
        .slice(0, k);
      expect(p.smiles, metric).toHaveLength(k);
      expect(p.smiles, metric).toEqual(want.map((w) => w.smi));
      // Pages round similarity to 5 decimals (engine/export round5).
      p.similarity.forEach((x: number, i: number) => expect(x, metric).toBeCloseTo(want[i].v, 4));
      for (let i = 1; i < p.similarity.length; i++)
        expect(p.similarity[i]).toBeLessThanOrEqual(p.similarity[i - 1]);
    }
  }, 600_000);

  it('substructure mode has no scorer: the default shape does not stop it', async () => {
    const sub = await call(
      s,
      'POST',
      '/submit_synthongpt_job?search_input=C(%3DO)N&search_mode=substructure&db_name=rdkit_urea_space',
      s.keyA,
      {},
    );
    expect(sub.status).toBe(200);
  });
});

describe('3D scorers on synthon spaces with no chem3d worker', () => {
  let bare: TestStack;
  beforeAll(async () => {
    const dir = await tempDir('synthon-jobs-no3d');
    await buildTestSpaces(join(dir, 'data'));
    const p = `syn0-${randomBytes(4).toString('hex')}`;
    bare = await startTestStack(
      stackEnv(join(dir, 'data'), join(dir, 'catalogs'), inject('temporalAddress'), p),
    );
  }, 300_000);
  afterAll(async () => {
    await bare?.stack.stop();
  });

  it(
    'shape (the default) and esp answer 503 with Retry-After; morgan still runs',
    { timeout: 180_000 },
    async () => {
      for (const extra of ['', '&synthon_scorer=esp']) {
        const res = await bare.stack.app.inject({
          method: 'POST',
          url: `/submit_synthongpt_job?search_input=CCO&db_name=idorsia_toy_space${extra}`,
          headers: { 'x-api-key': bare.keyA, 'content-type': 'application/json' },
          payload: '{}',
        });
        expect(res.statusCode, extra).toBe(503);
        expect(Number(res.headers['retry-after']), extra).toBeGreaterThan(0);
      }
      const morgan = await call(
        bare,
        'POST',
        '/submit_synthongpt_job?search_input=CCO&db_name=idorsia_toy_space&synthon_scorer=morgan&sample_size=3',
        bare.keyA,
        {},
      );
      expect(morgan.status).toBe(200);
      expect(await waitStatus(bare, bare.keyA, morgan.body, 120_000)).toBe('SUCCESS');
    },
  );
  it('v2 search_cheese with scorer shape or esp on a space answers 503 with Retry-After', async () => {
    for (const scorer of ['shape', 'esp']) {
      const res = await bare.stack.app.inject({
        method: 'POST',
        url: '/api/v2/search_cheese',
        headers: { 'x-api-key': bare.keyA, 'content-type': 'application/json' },
        payload: JSON.stringify({ database_id: 'idorsia_toy_space', query_smiles: 'CCO', scorer, limit: 3 }),
      });
      expect(res.statusCode, scorer).toBe(503);
      expect(Number(res.headers['retry-after']), scorer).toBeGreaterThan(0);
    }
  });
});
