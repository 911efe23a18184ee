import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { rename } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { PROPERTY_KEYS } from '../../engine/export/index.ts';
import { taskQueue } from '../../workflows/contracts.ts';
import { writeSyntheticCatalog } from '../../testkit/synthetic-catalog.ts';
import { call, stackEnv, startTestStack, tempDir, waitStatus, type TestStack } from './support/stack.ts';

// Real parts: the shared Temporal dev server, PGlite, the local object store, a synthetic catalog
// of 50,000 rows in 4 shards, the API through inject().
let s: TestStack;
let catalogDir: string;
let prefix: string;
const ASPIRIN = 'CC(=O)Oc1ccccc1C(=O)O';

beforeAll(async () => {
  const dir = await tempDir('jobs-test');
  catalogDir = join(dir, 'catalogs');
  await writeSyntheticCatalog(catalogDir, 'synth', 50_000, 12_500);
  // Scanned only by the transient-failure test, so no worker has its shards cached.
  await writeSyntheticCatalog(catalogDir, 'synth2', 4_000, 2_000, 11);
  prefix = `jobs-${randomBytes(4).toString('hex')}`;
  s = await startTestStack(stackEnv(join(dir, 'data'), catalogDir, inject('temporalAddress'), prefix));
});

afterAll(async () => {
  await s?.stack.stop();
});

const submit = async (k: number, key = s.keyA, db = 'synth') => {
  const r = await call(
    s,
    'GET',
    `/submit_molsearch?search_input=${encodeURIComponent(ASPIRIN)}&search_type=morgan&db_names=${db}&n_neighbors=${k}`,
    key,
  );
  expect(r.status, r.raw).toBe(200);
  return r.body as string;
};

describe('legacy molsearch jobs', () => {
  let job: string;

  it('answers the job name as a bare JSON string and reaches SUCCESS', async () => {
    job = await submit(20_000);
    expect(job).toMatch(/^job_[0-9A-Z]{26}$/);
    expect(await waitStatus(s, s.keyA, job)).toBe('SUCCESS');
    const info = await call(s, 'GET', `/job_info?job_name=${job}`, s.keyA);
    expect(info.body).toMatchObject({
      job_name: job,
      status: 'SUCCESS',
      rows: 20_000,
      parameters: { n_neighbors: 20_000, db_names: ['synth'] },
    });
    expect(info.body.progress).toEqual({ shards_done: 4, shards_total: 4 });
  });

  it('pages every row once, sorted by similarity, ids unique across pages, 5-decimal similarities', async () => {
    const ids = new Set<string>();
    let last = Infinity;
    let pages = 0;
    for (let p = 0; ; p++) {
      const r = await call(
        s,
        'POST',
        `/get_molsearch_page?job_name=${job}&db_name=synth&page_size=3000&page_num=${p}&sim_th=0`,
        s.keyA,
        {},
      );
      expect(r.status).toBe(200);
      const cols = Object.keys(r.body);
      expect(cols).toEqual(['smiles', 'id', 'database', 'db_id', 'similarity', 'in_prop_range']);
      const n = r.body.id.length;
      for (const c of cols) expect(r.body[c]).toHaveLength(n);
      for (let i = 0; i < n; i++) {
        expect(ids.has(r.body.id[i])).toBe(false);
        ids.add(r.body.id[i]);
        expect(r.body.similarity[i]).toBeLessThanOrEqual(last);
        last = r.body.similarity[i];
        expect(Math.round(r.body.similarity[i] * 1e5) / 1e5).toBe(r.body.similarity[i]);
      }
      pages++;
      if (n < 3000) break;
    }
    expect(ids.size).toBe(20_000);
    expect(pages).toBe(7);
  });

  it('filters by sim_th and the distance window, and flags prop_ranges without dropping rows', async () => {
    const all = await call(
      s,
      'POST',
      `/get_molsearch_page?job_name=${job}&page_size=20000&page_num=0`,
      s.keyA,
      {},
    );
    const sims: number[] = all.body.similarity;
    const th = sims[999];
    const r = await call(
      s,
      'POST',
      `/get_molsearch_page?job_name=${job}&page_size=20000&page_num=0&sim_th=${th}`,
      s.keyA,
      {},
    );
    expect(r.body.id.length).toBe(sims.filter((x) => x >= th).length);
    const w = await call(
      s,
      'POST',
      `/get_molsearch_page?job_name=${job}&page_size=20000&page_num=0&d_min=${(1 - th).toFixed(5)}&d_max=1`,
      s.keyA,
      {},
    );
    expect(w.body.id.length).toBe(
      sims.filter((x) => Math.round((1 - x) * 1e5) / 1e5 >= Number((1 - th).toFixed(5))).length,
    );
    const pr = await call(
      s,
      'POST',
      `/get_molsearch_page?job_name=${job}&page_size=500&page_num=0&include_properties=true`,
      s.keyA,
      {
        prop_ranges: { molecular_weight: { min: 0, max: 50 }, caco2_wang: { min: -100000, max: 100000 } },
      },
    );
    expect(Object.keys(pr.body)).toEqual([
      'smiles',
      'id',
      'database',
      'db_id',
      'similarity',
      'in_prop_range',
      ...PROPERTY_KEYS,
    ]);
    expect(PROPERTY_KEYS).toHaveLength(33);
    expect(pr.body.id).toHaveLength(500);
    for (let i = 0; i < 500; i++) expect(pr.body.in_prop_range[i]).toBe(pr.body.molecular_weight[i] <= 50);
    expect(pr.body.in_prop_range.some(Boolean)).toBe(true);
    expect(pr.body.in_prop_range.every(Boolean)).toBe(false);
  });

  it('rejects an unknown prop_ranges key with a 422 listing the valid keys', async () => {
    const r = await call(s, 'POST', `/get_molsearch_page?job_name=${job}&page_num=0`, s.keyA, {
      prop_ranges: { mol_weight: { min: 1, max: 2 } },
    });
    expect(r.status).toBe(422);
    expect(r.body.detail[0].loc).toEqual(['body', 'prop_ranges', 'mol_weight']);
    expect(r.body.detail[0].msg).toContain('molecular_weight');
    expect(r.body.detail[0].msg).toContain('pgp_broccatelli');
  });

  it("hides a job from another user (404 everywhere) and lists the caller's jobs newest first", async () => {
    for (const [m, u] of [
      ['GET', `/job_status?job_name=${job}`],
      ['GET', `/job_info?job_name=${job}`],
      ['POST', `/get_molsearch_page?job_name=${job}&page_num=0`],
      ['POST', `/revoke_job?job_name=${job}`],
      ['POST', `/prepare_download?job_name=${job}`],
    ] as const) {
      expect((await call(s, m, u, s.keyB)).status, u).toBe(404);
    }
    const second = await submit(10);
    const list = await call(s, 'GET', '/user_jobs', s.keyA);
    expect(list.body.map((j: { job_name: string }) => j.job_name).slice(0, 2)).toEqual([second, job]);
    expect((await call(s, 'GET', '/user_jobs', s.keyB)).body).toEqual([]);
    expect(await waitStatus(s, s.keyA, second)).toBe('SUCCESS');
  });

  it('rejects n_neighbors above 100,000 and an unparsable query with 422', async () => {
    const big = await call(
      s,
      'GET',
      `/submit_molsearch?search_input=CCO&search_type=morgan&db_names=synth&n_neighbors=100001`,
      s.keyA,
    );
    expect(big.status).toBe(422);
    expect(big.body.detail[0].loc).toEqual(['query', 'n_neighbors']);
    const bad = await call(
      s,
      'GET',
      `/submit_molsearch?search_input=C1CC&search_type=morgan&db_names=synth&n_neighbors=10`,
      s.keyA,
    );
    expect(bad.status).toBe(422);
  });

  it('answers an empty page (200, every list empty) while the job runs, and revokes it', async () => {
    const running = await submit(100_000);
    const page = await call(
      s,
      'POST',
      `/get_molsearch_page?job_name=${running}&page_num=0&include_properties=true`,
      s.keyA,
      {},
    );
    expect(page.status).toBe(200);
    expect(Object.values(page.body).every((v) => Array.isArray(v) && v.length === 0)).toBe(true);
    expect(Object.keys(page.body)).toHaveLength(6 + 33);
    const rv = await call(s, 'POST', `/revoke_job?job_name=${running}`, s.keyA);
    expect(rv.body).toEqual({ job_name: running, status: 'REVOKED' });
    expect(await waitStatus(s, s.keyA, running)).toBe('REVOKED');
    const client = new Client({
      connection: await Connection.connect({ address: inject('temporalAddress') }),
    });
    const d = await client.workflow.getHandle(running).describe();
    const deadline = Date.now() + 20_000;
    let status = d.status.name;
    while (status === 'RUNNING' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      status = (await client.workflow.getHandle(running).describe()).status.name;
    }
    expect(status).toBe('CANCELLED');
    await client.connection.close();
  });

  it('fails a job with bad input at once (one attempt, non-retryable) with the reason in job info', async () => {
    // The API refuses bad SMILES, so the workflow is started directly, as a stale or hand-made job would be.
    const name = `job_${'0'.repeat(10)}${randomBytes(8)
      .toString('hex')
      .toUpperCase()
      .replace(/[ILOU]/g, 'A')
      .slice(0, 16)}`;
    const acct = (await s.stack.store.accounts.authenticate(s.keyA)) as { ok: true; account: { id: string } };
    await s.stack.store.db.query(
      `INSERT INTO jobs (id, account_id, kind, status, params) VALUES ($1, $2, 'molsearch', 'PENDING', '{}'::jsonb)`,
      [name, acct.account.id],
    );
    const client = new Client({
      connection: await Connection.connect({ address: inject('temporalAddress') }),
    });
    const t0 = Date.now();
    await client.workflow.start('molsearchJobWorkflow', {
      workflowId: name,
      taskQueue: taskQueue(prefix, 'orchestration'),
      args: [
        {
          jobName: name,
          smiles: 'not a smiles((',
          dbNames: ['synth'],
          k: 10,
          queues: { scan: taskQueue(prefix, 'scan'), export: taskQueue(prefix, 'export') },
        },
      ],
    });
    expect(await waitStatus(s, s.keyA, name, 20_000)).toBe('FAILURE');
    expect(Date.now() - t0).toBeLessThan(10_000);
    const info = await call(s, 'GET', `/job_info?job_name=${name}`, s.keyA);
    expect(info.body.error).toMatch(/invalid search_input/);
    const history = await client.workflow.getHandle(name).fetchHistory();
    const scheduled = history.events!.filter(
      (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'jobPrepare',
    );
    const started = history.events!.filter((e) => e.activityTaskStartedEventAttributes);
    expect(scheduled).toHaveLength(1);
    expect(started[0].activityTaskStartedEventAttributes!.attempt).toBe(1);
    await client.connection.close();
  });

  it('retries a scan that fails transiently (shard file missing) and then succeeds', async () => {
    const shardFile = join(catalogDir, 'synth2', 'shard-00001.arrow');
    await rename(shardFile, `${shardFile}.away`);
    const name = await submit(1000, s.keyA, 'synth2');
    const client = new Client({
      connection: await Connection.connect({ address: inject('temporalAddress') }),
    });
    // Wait until a scan attempt has failed (the pending activity shows a failure), then restore the file.
    const deadline = Date.now() + 30_000;
    let failed = false;
    while (!failed && Date.now() < deadline) {
      const d = await client.workflow.getHandle(name).describe();
      failed = (d.raw.pendingActivities ?? []).some((a) => (a.attempt ?? 0) > 1 && a.lastFailure?.message);
      if (!failed) await new Promise((r) => setTimeout(r, 200));
    }
    await rename(`${shardFile}.away`, shardFile);
    expect(failed).toBe(true);
    expect(await waitStatus(s, s.keyA, name, 60_000)).toBe('SUCCESS');
    const info = await call(s, 'GET', `/job_info?job_name=${name}`, s.keyA);
    expect(info.body.rows).toBe(1000);
    await client.connection.close();
  });

  it('prepares csv and json downloads on the local object store, served by the API to the owner only', async () => {
    const prep = await call(
      s,
      'POST',
      `/prepare_download?job_name=${job}&file_format=csv&file_format=json&sim_th=0&include_properties=true`,
      s.keyA,
      {
        prop_ranges: { clogp: { min: -1, max: 200 } },
      },
    );
    expect(prep.status, prep.raw).toBe(200);
    expect(prep.body).toMatchObject({ job_name: job, formats: ['csv', 'json'] });
    const id = prep.body.download_id;
    let link = prep.body;
    const until = Date.now() + 60_000;
    while (link.status !== 'READY' && link.status !== 'FAILURE' && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 200));
      link = (await call(s, 'GET', `/download_link?download_id=${id}`, s.keyA)).body;
    }
    expect(link.status).toBe('READY');
    const csvUrl = new URL(link.files[0].url);
    expect(csvUrl.pathname).toBe(`/downloads/${id}/csv`);
    const csv = await s.stack.app.inject({
      method: 'GET',
      url: csvUrl.pathname,
      headers: { 'x-api-key': s.keyA },
    });
    expect(csv.statusCode).toBe(200);
    const lines = csv.body.trim().split(/\r\n/);
    expect(lines[0]).toBe(
      ['smiles', 'id', 'database', 'db_id', 'similarity', 'in_prop_range', ...PROPERTY_KEYS].join(','),
    );
    expect(lines).toHaveLength(20_001);
    const json = await s.stack.app.inject({
      method: 'GET',
      url: `/downloads/${id}/json`,
      headers: { 'x-api-key': s.keyA },
    });
    const rows = JSON.parse(json.body);
    expect(rows).toHaveLength(20_000);
    expect(rows[0].clogp >= -1 && rows[0].clogp <= 200).toBe(rows[0].in_prop_range);
    expect(
      (
        await s.stack.app.inject({
          method: 'GET',
          url: `/downloads/${id}/csv`,
          headers: { 'x-api-key': s.keyB },
        })
      ).statusCode,
    ).toBe(404);
    expect((await call(s, 'GET', `/download_link?download_id=${id}`, s.keyB)).status).toBe(404);
    expect(
      (await call(s, 'GET', '/user_downloads', s.keyA)).body.map(
        (d: { download_id: string }) => d.download_id,
      ),
    ).toContain(id);
    expect((await call(s, 'GET', '/user_downloads', s.keyB)).body).toEqual([]);
    const badFormat = await call(s, 'POST', `/prepare_download?job_name=${job}&file_format=pdf`, s.keyA, {});
    expect(badFormat.status).toBe(422);
    expect(badFormat.body.detail[0].msg).toContain('csv, json, xlsx, sdf');
  });

  it('uploads a file and searches it; paths that leave the user area are refused before any read or write', async () => {
    const body = 'name,SMILES\naspirin,CC(=O)Oc1ccccc1C(=O)O\nethanol,CCO\n';
    const up = await s.stack.app.inject({
      method: 'POST',
      url: '/upload_file?path=in/mols.csv',
      headers: { 'x-api-key': s.keyA, 'content-type': 'text/csv' },
      payload: body,
    });
    expect(up.statusCode, up.body).toBe(200);
    const r = await call(
      s,
      'GET',
      '/search_file?input_file=in/mols.csv&search_type=morgan&db_names=synth&n_neighbors=3&output_file=out/res.csv',
      s.keyA,
    );
    expect(r.status, r.raw).toBe(200);
    expect(r.body.count).toBe(2);
    expect(r.body.results[0].neighbors).toHaveLength(3);
    const acct = (await s.stack.store.accounts.authenticate(s.keyA)) as { ok: true; account: { id: string } };
    const out = Buffer.from(
      await s.stack.objects.getBytes(`users/${acct.account.id}/files/out/res.csv`),
    ).toString();
    expect(out.trim().split(/\r\n/)).toHaveLength(1 + 6);
    // Another user cannot read it by the same path: it resolves inside their own (empty) area.
    expect(
      (await call(s, 'GET', '/search_file?input_file=in/mols.csv&search_type=morgan&db_names=synth', s.keyB))
        .status,
    ).toBe(422);
    for (const p of [
      '../x.csv',
      'in/../../other/files/mols.csv',
      '/etc/passwd',
      '..%2F..%2Fx',
      'C:\\x.csv',
      'a//b.csv',
      './a.csv',
    ]) {
      const q = await call(
        s,
        'GET',
        `/search_file?input_file=${encodeURIComponent(p)}&search_type=morgan&db_names=synth`,
        s.keyA,
      );
      expect(q.status, p).toBe(422);
      expect(q.body.detail[0].loc, p).toEqual(['query', 'input_file']);
      const o = await call(
        s,
        'GET',
        `/search_file?input_file=in/mols.csv&output_file=${encodeURIComponent(p)}&search_type=morgan&db_names=synth`,
        s.keyA,
      );
      expect(o.status, p).toBe(422);
      const u = await s.stack.app.inject({
        method: 'POST',
        url: `/upload_file?path=${encodeURIComponent(p)}`,
        headers: { 'x-api-key': s.keyA, 'content-type': 'text/csv' },
        payload: body,
      });
      expect(u.statusCode, p).toBe(422);
    }
  });

  it('validates every synthon job parameter, then answers a clear 422 while no synthon database exists', async () => {
    const bad = await call(
      s,
      'POST',
      '/submit_synthongpt_job?search_input=CCO&synthon_scorer=banana',
      s.keyA,
      {},
    );
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['query', 'synthon_scorer']);
    const smarts = await call(
      s,
      'POST',
      '/submit_synthongpt_job?search_input=CCO&smarts_prefilter_pattern_smarts=%5B%23',
      s.keyA,
      {},
    );
    expect(smarts.status).toBe(422);
    expect(smarts.body.detail[0].loc).toEqual(['query', 'smarts_prefilter_pattern_smarts']);
    const ok = await call(
      s,
      'POST',
      '/submit_synthongpt_job?search_input=CCO&search_quality=10000&include_properties=True&sample_size=100&synthon_scorer=morgan',
      s.keyA,
      {},
    );
    expect(ok.status).toBe(422);
    expect(ok.body.detail[0].loc).toEqual(['query', 'db_name']);
    expect(ok.body.detail[0].msg).toMatch(/synthon/);
  });
});
