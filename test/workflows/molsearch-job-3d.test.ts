import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import {
  buildGridTables,
  createShapePool,
  describeConformers,
  espPrescreenScan,
  gridDescriptors,
  gridScan,
  prepareShape,
  scanShortlist,
  shapeTanimotoAt,
  type ConformerSet,
} from '../../engine/shape/index.ts';
import { openCatalog } from '../../engine/catalog/reader.ts';
import { loadShard3d } from '../../engine/catalog/three-d-reader.ts';
import { moleculeFromBase64 } from '../../engine/catalog/three-d-schema.ts';
import { createSearchPool } from '../../engine/search/index.ts';
import { createShapeStages } from '../../api/services/shape-stages.ts';
import { gridShapeTanimoto } from '../../engine/shape/grid-tanimoto.ts';
import { round5 } from '../../engine/export/result-view.ts';
import type { Chem3dWorker } from '../../platform/chem3d/process.ts';
import { createLocalObjectStore } from '../../platform/object-store/index.ts';
import { createLogger } from '../../platform/logger.ts';
import { createJob3dActivities } from '../../activities/jobs-3d.ts';
import { decodePart3d } from '../../activities/jobs-3d-parts.ts';
import { createShardCache } from '../../activities/jobs-shards.ts';
import { chem3dPython } from '../support/chem3d.ts';
import { ASPIRIN, DRUGS, startThreeDStack } from '../support/three-d-stack.ts';
import { call, tempDir, waitStatus, type TestStack } from './support/stack.ts';

// Real parts (test/support/three-d-stack.ts): the service stack, the Python chem3d worker, a
// catalog of ChEMBL drugs made 3D-ready by its 3D stage (plus one molecule too large to embed,
// which stays in the catalog without a 3D model), and a flat catalog without 3D.
const TOO_LARGE = 'C'.repeat(101);
let s: TestStack;
let py: Chem3dWorker;
let root: string;

beforeAll(async () => {
  ({ s, py, root } = await startThreeDStack('drugs3d', 40, {
    rows3d: [[ASPIRIN, 'ASPIRIN'], ...DRUGS.slice(0, 40), [TOO_LARGE, 'C101']],
  }));
}, 600_000);

afterAll(async () => {
  await py?.stop();
  await s?.stack.stop();
});

const q = (smiles: string) => encodeURIComponent(smiles);

async function submit(query: string): Promise<{ status: number; body: any; raw: string }> {
  return call(s, 'GET', `/submit_molsearch?${query}`, s.keyA);
}

async function page(job: string, num: number, size: number) {
  const r = await call(
    s,
    'POST',
    `/get_molsearch_page?job_name=${job}&page_num=${num}&page_size=${size}`,
    s.keyA,
  );
  expect(r.status, r.raw).toBe(200);
  return r.body as Record<string, any[]>;
}

/** Coordinates and elements of each record of an SDF (V2000), by its title and data fields. */
function parseSdf(text: string) {
  return text
    .split('$$$$\n')
    .filter((r) => r.trim())
    .map((rec) => {
      const lines = rec.split('\n');
      const n = Number(lines[3].slice(0, 3));
      const elements: string[] = [];
      const xyz: number[] = [];
      for (let i = 0; i < n; i++) {
        const l = lines[4 + i];
        xyz.push(Number(l.slice(0, 10)), Number(l.slice(10, 20)), Number(l.slice(20, 30)));
        elements.push(l.slice(31, 34).trim());
      }
      const fields: Record<string, string> = {};
      for (const m of rec.matchAll(/>  <([^>]+)>\n([^\n]*)\n/g)) fields[m[1]] = m[2];
      return { title: lines[0], elements, xyz: Float32Array.from(xyz), fields };
    });
}

const Z: Record<string, number> = { H: 1, C: 6, N: 7, O: 8, F: 9, P: 15, S: 16, Cl: 17, Br: 35, I: 53 };
const asSet = (r: { elements: string[]; xyz: Float32Array }): ConformerSet => ({
  atomCount: r.elements.length,
  confCount: 1,
  elements: Uint8Array.from(r.elements, (e) => Z[e] ?? 6),
  charges: new Float32Array(r.elements.length),
  coords: r.xyz,
});

describe('3D molsearch jobs', () => {
  let job: string;

  it('scores every row of a 3D-ready catalog with espsim_shape, skips and counts the row without a 3D model, and pages', async () => {
    const r = await submit(
      `search_input=${q(ASPIRIN)}&search_type=espsim_shape&db_names=drugs3d&n_neighbors=100`,
    );
    expect(r.status, r.raw).toBe(200);
    job = r.body;
    expect(await waitStatus(s, s.keyA, job, 180_000)).toBe('SUCCESS');
    const info = (await call(s, 'GET', `/job_info?job_name=${job}`, s.keyA)).body;
    expect(info.progress).toEqual({ shards_done: 3, shards_total: 3, rows_scored: 41, rows_rejected: 1 });
    expect(info.rows).toBe(41);
    const p0 = await page(job, 0, 30);
    const p1 = await page(job, 1, 30);
    expect(p0.id).toHaveLength(30);
    expect(p1.id).toHaveLength(11);
    expect(new Set([...p0.id, ...p1.id]).size).toBe(41);
    expect(p0.id).not.toContain('C101');
    expect(p0.id[0]).toBe('ASPIRIN');
    expect(p0.Shapesim[0]).toBeCloseTo(1, 3);
    for (const p of [p0, p1]) {
      for (const col of Object.values(p)) expect(col).toHaveLength(p.id.length);
      // The score of the job's type is its similarity: both rounded to 5 decimals.
      p.similarity.forEach((v, i) => expect(v).toBe(p.Shapesim[i]));
    }
    const all = [...p0.Shapesim, ...p1.Shapesim];
    expect([...all].sort((a, b) => b - a)).toEqual(all);
  }, 240_000);

  it('gives the scores of the synchronous /molsearch for the same query on its rows', async () => {
    const sync = await call(
      s,
      'GET',
      `/molsearch?search_input=${q(ASPIRIN)}&search_type=espsim_shape&db_names=drugs3d&n_neighbors=10`,
      s.keyA,
    );
    expect(sync.status, sync.raw).toBe(200);
    const p = await page(job, 0, 30);
    const rows = sync.body.neighbors as { id: string; Shapesim: number; Espsim: number }[];
    expect(p.id.slice(0, 10)).toEqual(rows.map((n) => n.id));
    for (const n of rows) {
      const i = p.id.indexOf(n.id);
      expect(p.Shapesim[i]).toBe(round5(n.Shapesim));
      expect(p.Espsim[i]).toBe(round5(n.Espsim));
    }
  });

  it('downloads csv, json, xlsx and an SDF whose aligned hits overlay the query conformer with the reported shape score', async () => {
    const prep = await call(
      s,
      'POST',
      `/prepare_download?job_name=${job}&file_format=csv&file_format=json&file_format=xlsx&file_format=sdf`,
      s.keyA,
      {},
    );
    expect(prep.status, prep.raw).toBe(200);
    const id = prep.body.download_id;
    let link = prep.body;
    const until = Date.now() + 120_000;
    while (link.status !== 'READY' && link.status !== 'FAILURE' && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 200));
      link = (await call(s, 'GET', `/download_link?download_id=${id}`, s.keyA)).body;
    }
    expect(link.status, JSON.stringify(link)).toBe('READY');
    const get = async (fmt: string) =>
      s.stack.app.inject({ method: 'GET', url: `/downloads/${id}/${fmt}`, headers: { 'x-api-key': s.keyA } });
    const csv = (await get('csv')).body.trim().split(/\r\n/);
    expect(csv[0]).toBe('smiles,id,database,db_id,similarity,in_prop_range,Shapesim,Espsim');
    expect(csv).toHaveLength(42);
    const json = JSON.parse((await get('json')).body);
    expect(json[0]).toMatchObject({ id: 'ASPIRIN' });
    expect(json[0].Shapesim).toBeCloseTo(1, 3);
    // Both scores rounded to 5 decimals, as similarity is (and as the pages show them).
    for (const row of json) {
      expect(row.Shapesim).toBe(round5(row.Shapesim));
      expect(row.Espsim).toBe(round5(row.Espsim));
    }
    expect(json.some((row: { Espsim: number }) => String(row.Espsim).length > 3)).toBe(true);
    const xlsx = await get('xlsx');
    expect(xlsx.rawPayload.subarray(0, 2).toString()).toBe('PK');
    const sdfText = (await get('sdf')).body;
    const records = parseSdf(sdfText);
    const queries = records.filter((r) => r.title === 'Query Molecule');
    const hits = records.filter((r) => r.title !== 'Query Molecule');
    expect(queries.length).toBeGreaterThan(0);
    expect(hits).toHaveLength(41);
    expect(records.slice(0, queries.length)).toEqual(queries);
    // The reported score is espsim's grid shape Tanimoto (engine/shape/grid-tanimoto.ts) of the
    // pose as written, hit as the probe (no re-alignment): the SDF carries the scored pose.
    for (const h of hits.slice(0, 10)) {
      const qr = queries.find((x) => x.fields.query_conformer === h.fields.query_conformer)!;
      expect(h.elements.filter((e) => e !== 'H').length).toBeGreaterThan(0);
      const [hs, qs] = [asSet(h), asSet(qr)];
      const grid = gridShapeTanimoto(hs.coords, hs.elements, qs.coords, qs.elements);
      expect(grid).toBeCloseTo(Number(h.fields.Shapesim), 3);
      // The alignment's own objective, the Gaussian overlap, is high at that pose too.
      expect(shapeTanimotoAt(hs, 0, qs, 0)).toBeGreaterThan(grid - 0.05);
    }
    // Python RDKit reads every record with its hydrogens and bonds, and the reference's own shape
    // similarity of the written poses without moving them (espsim: 1 − rdShapeHelpers
    // .ShapeTanimotoDist(probe, ref)) is the reported score: the hits were aligned onto the query.
    const out = execFileSync(
      chem3dPython(),
      [
        '-c',
        `import sys, json
from rdkit import Chem
from rdkit.Chem import rdShapeHelpers as sh
mols = [m for m in Chem.SDMolSupplier(sys.argv[1], removeHs=False)]
assert all(m is not None for m in mols), 'unparsable record'
qs = {m.GetProp('query_conformer'): m for m in mols if m.GetProp('_Name') == 'Query Molecule'}
hits = [m for m in mols if m.GetProp('_Name') != 'Query Molecule']
res = [[float(m.GetProp('Shapesim')), 1 - sh.ShapeTanimotoDist(m, qs[m.GetProp('query_conformer')]), m.GetNumBonds()] for m in hits[:10]]
print(json.dumps({'n': len(mols), 'res': res}))`,
        await writeTemp(sdfText),
      ],
      { encoding: 'utf8' },
    );
    const parsed = JSON.parse(out) as { n: number; res: [number, number, number][] };
    expect(parsed.n).toBe(records.length);
    for (const [ours, rdkit, bonds] of parsed.res) {
      expect(bonds).toBeGreaterThan(0);
      expect(Math.abs(ours - rdkit), JSON.stringify(parsed.res)).toBeLessThan(0.02);
    }
  }, 180_000);

  it("scores a first-stage shortlist of a shard exactly as the exhaustive scan scores those rows, shortlisting by the synchronous search's first stage", async () => {
    const objects = createLocalObjectStore(await tempDir('job3d-objs'));
    const catalogDir = join(root, 'catalogs');
    const shapePool = createShapePool({ threads: 2 });
    const searchPool = createSearchPool({ threads: 1 });
    try {
      const acts = createJob3dActivities({
        log: createLogger({ level: 'warn', pretty: false }),
        objects,
        catalogDir,
        shards: createShardCache(catalogDir),
        shapePool,
      });
      // The query conformers the job stored (the chem3d worker's), reused under another job name.
      const wire = JSON.parse(
        Buffer.from(await s.stack.objects.getBytes(`jobs/${job}/query3d.json`)).toString(),
      );
      const { key: queryKey } = await acts.jobStoreQuery3d({
        jobName: 'sl',
        smiles: ASPIRIN,
        molecule: wire.molecule,
      });
      const base = { catalog: 'drugs3d', shard: 0, queryKey, k: 20, metric: 'shape' as const };
      const all = await acts.jobScanShard3d({ ...base, jobName: 'all', shortlist: 0 });
      const few = await acts.jobScanShard3d({ ...base, jobName: 'few', shortlist: 5 });
      expect(all.scored + all.rejected).toBe(20);
      expect(all.firstStage).toBeUndefined();
      expect(few.scored).toBeLessThanOrEqual(5);
      const pa = decodePart3d(await objects.getBytes(all.key));
      const pf = decodePart3d(await objects.getBytes(few.key));
      pf.rows.forEach((row, j) => {
        const i = pa.rows.indexOf(row);
        expect(i).toBeGreaterThanOrEqual(0);
        expect(pf.shape[j]).toBe(pa.shape[i]);
        expect(pf.esp[j]).toBe(pa.esp[i]);
      });
      expect(pf.rows.length).toBeGreaterThan(0);

      // Per shard, the job's shortlist is the grid first stage's top rows of that shard (the shape
      // grid; for ESP the ESP pre-stage over the charge grid's pool), computed here from the sidecar in this thread,
      // and it holds every row the synchronous search's first stage takes from that shard.
      const catalog = await openCatalog(join(catalogDir, 'drugs3d'));
      const stages = createShapeStages({ catalogs: [catalog], pool: searchPool, shapePool });
      const query = moleculeFromBase64(wire.molecule);
      const prepared = prepareShape(query);
      const limit = 5;
      const numeric = (a: ArrayLike<number>) => Array.from(a).sort((x, y) => x - y);
      expect(catalog.manifest.shards.filter((x) => x.rows > limit).length).toBeGreaterThanOrEqual(2);
      for (const metric of ['shape', 'esp'] as const) {
        const live = await stages.firstStage([query], ['drugs3d'], limit, metric);
        expect(live.method).toBe(metric === 'esp' ? 'ESP pre-stage' : 'shape grid');
        expect(live.candidates).toHaveLength(limit);
        for (let shard = 0; shard < catalog.manifest.shards.length; shard++) {
          const sidecar = await loadShard3d(catalog, shard);
          const r = await acts.jobScanShard3d({
            ...base,
            shard,
            metric,
            jobName: `grid-${metric}-${shard}`,
            shortlist: limit,
          });
          // A shard of at most `limit` rows (the last one here has 2) is scored whole.
          expect(r.firstStage).toBe(sidecar.rows > limit ? live.method : undefined);
          const part = decodePart3d(await objects.getBytes(r.key));
          const tables = buildGridTables(sidecar);
          const expected =
            metric === 'esp'
              ? espPrescreenScan(query, tables, sidecar, limit)
              : gridScan(gridDescriptors(prepared), tables.shape, limit);
          const withModel = Array.from(expected.rows).filter((row) => sidecar.confCounts[row] > 0);
          expect(numeric(part.rows)).toEqual(numeric(withModel));
          expect(r.scored).toBe(withModel.length);
          const liveRows = live.candidates.filter((c) => c.shard === shard).map((c) => c.row);
          for (const row of liveRows) expect(Array.from(part.rows)).toContain(row);
        }
      }

      // A catalog over the grid limit (lowered here to 10 conformers): both fall back to the
      // sidecars' USRCAT-style descriptors, and the job's shortlist of a shard still holds the
      // synchronous search's rows of that shard.
      const over = createJob3dActivities({
        log: createLogger({ level: 'warn', pretty: false }),
        objects,
        catalogDir,
        shards: createShardCache(catalogDir),
        shapePool,
        gridMaxConformers: 10,
      });
      const usrStages = createShapeStages({
        catalogs: [catalog],
        pool: searchPool,
        shapePool,
        gridMaxConformers: 10,
      });
      const live = await usrStages.firstStage([query], ['drugs3d'], limit, 'esp');
      expect(live.method).toBe('USRCAT descriptors');
      for (let shard = 0; shard < 2; shard++) {
        const sidecar = await loadShard3d(catalog, shard);
        const r = await over.jobScanShard3d({
          ...base,
          shard,
          metric: 'esp',
          jobName: `usr-${shard}`,
          shortlist: limit,
        });
        expect(r.firstStage).toBe('USRCAT descriptors');
        const part = decodePart3d(await objects.getBytes(r.key));
        const expected = scanShortlist(describeConformers(query), sidecar.table, limit);
        const withModel = Array.from(expected.rows).filter((row) => sidecar.confCounts[row] > 0);
        expect(numeric(part.rows)).toEqual(numeric(withModel));
        const liveRows = live.candidates.filter((c) => c.shard === shard).map((c) => c.row);
        for (const row of liveRows) expect(Array.from(part.rows)).toContain(row);
      }
    } finally {
      await shapePool.close();
      await searchPool.close();
    }
  }, 120_000);

  it('keeps job history small: the query conformers (from the submission) once in each direction, otherwise keys and counts', async () => {
    const connection = await Connection.connect({ address: inject('temporalAddress') });
    try {
      const history = await new Client({ connection }).workflow.getHandle(job).fetchHistory();
      const bytes = JSON.stringify(history).length;
      // 41 rows, 3 shards: the embedded query (~10 conformers of 21 atoms, base64) dominates.
      expect(bytes).toBeLessThan(80_000); // measured: 40 KB, 77 events
      expect(JSON.stringify(history)).not.toContain('coords_3d');
      // The submission's check embedded the query; the job took those conformers, not a second embedding.
      expect(JSON.stringify(history)).not.toContain('chem3dEmbedQuery');
      expect(JSON.stringify(history)).toContain('jobStoreQuery3d');
    } finally {
      await connection.close();
    }
  });

  it('serves the default search type (espsim_shape) on the 3D-ready database when none is named', async () => {
    const r = await submit(`search_input=${q(ASPIRIN)}&n_neighbors=3`);
    expect(r.status, r.raw).toBe(200);
    expect(await waitStatus(s, s.keyA, r.body, 180_000)).toBe('SUCCESS');
    const info = (await call(s, 'GET', `/job_info?job_name=${r.body}`, s.keyA)).body;
    expect(info.parameters).toMatchObject({ search_type: 'espsim_shape', db_names: ['drugs3d'] });
    expect((await page(r.body, 0, 30)).id).toEqual((await page(job, 0, 3)).id);
  }, 240_000);

  it('ranks by the electrostatic score with espsim_electrostatic at very_accurate', async () => {
    const r = await submit(
      `search_input=${q(ASPIRIN)}&search_type=espsim_electrostatic&search_quality=very_accurate&db_names=drugs3d&n_neighbors=5`,
    );
    expect(r.status, r.raw).toBe(200);
    expect(await waitStatus(s, s.keyA, r.body, 180_000)).toBe('SUCCESS');
    const p = await page(r.body, 0, 30);
    expect(p.id).toHaveLength(5);
    expect(p.id[0]).toBe('ASPIRIN');
    p.similarity.forEach((v, i) => expect(v).toBe(p.Espsim[i]));
    expect([...p.Espsim].sort((a, b) => b - a)).toEqual(p.Espsim);
  }, 240_000);

  it('answers 422s for a database that is not 3D-ready, a query that cannot be embedded, and too many neighbours', async () => {
    const flat = await submit(`search_input=${q(ASPIRIN)}&search_type=espsim_shape&db_names=flat`);
    expect(flat.status).toBe(422);
    expect(flat.body.detail[0].loc).toEqual(['query', 'db_names']);
    expect(flat.body.detail[0].msg).toMatch(/not 3D-ready/);
    const big = await submit(`search_input=${q(TOO_LARGE)}&search_type=espsim_shape&db_names=drugs3d`);
    expect(big.status).toBe(422);
    expect(big.body.detail[0].loc).toEqual(['query', 'search_input']);
    expect(big.body.detail[0].msg).toMatch(/too large/);
    const many = await submit(`search_input=${q(ASPIRIN)}&search_type=espsim_shape&n_neighbors=100001`);
    expect(many.status).toBe(422);
    expect(many.body.detail[0].loc).toEqual(['query', 'n_neighbors']);
  });

  it('runs /search_file with espsim_shape: both scores per row in the answer and the CSV', async () => {
    const up = await s.stack.app.inject({
      method: 'POST',
      url: '/upload_file?path=inputs/q3d.csv',
      headers: { 'x-api-key': s.keyA, 'content-type': 'text/csv' },
      payload: `SMILES\n${ASPIRIN}\n${DRUGS[3][0]}\n`,
    });
    expect(up.statusCode, up.body).toBe(200);
    const r = await call(
      s,
      'GET',
      '/search_file?input_file=inputs/q3d.csv&search_type=espsim_shape&db_names=drugs3d&n_neighbors=3',
      s.keyA,
    );
    expect(r.status, r.raw).toBe(200);
    expect(r.body.results).toHaveLength(2);
    expect(r.body.results[0].neighbors[0]).toMatchObject({ id: 'ASPIRIN' });
    expect(r.body.results[1].neighbors[0]).toMatchObject({ id: DRUGS[3][1] });
    expect(r.body.results[0].neighbors[0].Shapesim).toBeCloseTo(1, 3);
    const acct = (await s.stack.store.accounts.authenticate(s.keyA)) as { ok: true; account: { id: string } };
    const csv = Buffer.from(
      await s.stack.objects.getBytes(`users/${acct.account.id}/files/${r.body.output_file}`),
    )
      .toString()
      .trim()
      .split(/\r\n/);
    expect(csv[0]).toBe('query_smiles,rank,smiles,id,database,db_id,similarity,Shapesim,Espsim');
    expect(csv).toHaveLength(1 + 6);
    const first = csv[1].split(',');
    expect(Number(first[7])).toBe(r.body.results[0].neighbors[0].Shapesim);
    const bad = await s.stack.app.inject({
      method: 'POST',
      url: '/upload_file?path=inputs/bad3d.csv',
      headers: { 'x-api-key': s.keyA, 'content-type': 'text/csv' },
      payload: `SMILES\n${ASPIRIN}\n${TOO_LARGE}\n`,
    });
    expect(bad.statusCode).toBe(200);
    const e = await call(
      s,
      'GET',
      '/search_file?input_file=inputs/bad3d.csv&search_type=espsim_shape&db_names=drugs3d',
      s.keyA,
    );
    expect(e.status).toBe(422);
    expect(e.body.detail[0].loc).toEqual(['query', 'input_file', 3]);
  }, 120_000);
});

async function writeTemp(text: string): Promise<string> {
  const path = join(await tempDir('sdf3d'), 'hits.sdf');
  await writeFile(path, text);
  return path;
}
