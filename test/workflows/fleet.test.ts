import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { Client, Connection } from '@temporalio/client';
import { writeSyntheticCatalog } from '../../testkit/synthetic-catalog.ts';
import { catalogKey, publishCatalog } from '../../engine/catalog/index.ts';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { listMembers, removeMember, writeMember } from '../../engine/fleet/members.ts';
import { createJobActivities } from '../../activities/jobs.ts';
import { decodeJobResult } from '../../engine/export/index.ts';
import { createLocalObjectStore, createS3ObjectStore } from '../../platform/object-store/index.ts';
import { createLogger } from '../../platform/logger.ts';
import { call, stackEnv, startTestStack, tempDir, waitStatus, type TestStack } from './support/stack.ts';

// The fleet on one machine (issue 14): three `molsearch worker` processes that share no catalog
// directory, the catalog published to the suite's S3-compatible server (moto), PostgreSQL shared
// with the API (in this process, no worker of its own). Compared with the same job run by the
// activities in one process over the local catalog directory.
const adminUrl = inject('databaseUrl');
const dbName = `molsearch_fleet_${process.pid}_${randomBytes(3).toString('hex')}`;
const prefix = `fleet-${randomBytes(4).toString('hex')}`;
const SHARDS = 15;
const K = 20_000;
const QUERY = 'CC(=O)Oc1ccccc1C(=O)O';
let pgReachable = true;
let dir: string;
let env: Record<string, string>;
let api: TestStack;
/** An API with FLEET_SEARCH: it holds no shard and fans synchronous searches out to the workers. */
let fleetApi: TestStack;
let bucket: ReturnType<typeof createS3ObjectStore>;
let reference: { id: string[]; similarity: number[] };
let temporal: Client;
const workers = new Map<string, ChildProcess>();

async function admin(sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 3000 });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

/** `molsearch worker` with its own id, data and cache directories; resolves on `worker ready`. */
function spawnWorker(id: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [resolve('bin/molsearch.ts'), 'worker'], {
    env: {
      ...process.env,
      ...env,
      WORKER_ID: id,
      DATA_DIR: join(dir, `data-${id}`),
      SHARD_CACHE_DIR: join(dir, `cache-${id}`),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  workers.set(id, child);
  return new Promise((ok, fail) => {
    let err = '';
    const timer = setTimeout(() => fail(new Error(`worker ${id} did not start: ${err}`)), 90_000);
    child.stdout!.on('data', (d: Buffer) => {
      if (d.toString().includes('worker ready')) {
        clearTimeout(timer);
        ok(child);
      }
    });
    child.stderr!.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-4000)));
    child.on('exit', (code) => fail(new Error(`worker ${id} exited with ${code}: ${err}`)));
  });
}

const live = async () => (await listMembers(bucket, prefix, 4_000)).live;

/** Waits until the live members hold every shard of `catalog`. */
async function placed(catalog: string, members: number, timeoutMs = 90_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const m = await live();
    const held = new Set(m.flatMap((x) => x.held.filter((h) => h.catalog === catalog).map((h) => h.shard)));
    if (m.length === members && held.size === SHARDS) return m;
    if (Date.now() > until) throw new Error(`placement incomplete: ${JSON.stringify(m.map((x) => x.held))}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function rows(job: string) {
  const r = await call(
    api,
    'POST',
    `/get_molsearch_page?job_name=${job}&page_size=${K}&page_num=0`,
    api.keyA,
    {},
  );
  expect(r.status).toBe(200);
  return r.body as { id: string[]; similarity: number[] };
}

/** The task queues the job's shard scans were scheduled on, in order. */
async function scanQueues(job: string): Promise<string[]> {
  const h = await temporal.workflow.getHandle(job).fetchHistory();
  return (h.events ?? [])
    .map((e) => e.activityTaskScheduledEventAttributes)
    .filter((a) => a?.activityType?.name === 'jobScanShard')
    .map((a) => a!.taskQueue!.name!);
}

/** /molsearch on the fleet API: neighbours, coverage header and warnings. */
async function fleetSearch(k = 100) {
  const res = await fleetApi.stack.app.inject({
    method: 'GET',
    url: `/molsearch?search_input=${encodeURIComponent(QUERY)}&search_type=morgan&db_names=fleetcat&n_neighbors=${k}`,
    headers: { 'x-api-key': fleetApi.keyA },
  });
  expect(res.statusCode).toBe(200);
  const body = res.json() as { neighbors: { id: string; similarity: number }[]; warnings?: string[] };
  return { ...body, coverage: Number(res.headers['x-molsearch-coverage']) };
}

/** POST /api/v2/search on `s` (the API holding the catalog, or the fleet API). */
async function v2Search(s: TestStack, limit = 200) {
  const r = await call(s, 'POST', '/api/v2/search', s.keyA, {
    query_smiles: QUERY,
    database_id: 'fleetcat',
    limit,
  });
  expect(r.status).toBe(200);
  return r.body as {
    results: { rank: number; product_id: string; score: number }[];
    counts: { returned: number; scanned: number; coverage?: number };
    warnings: { code: string; message: string }[];
  };
}

const CENTROID_INPUTS = [QUERY, 'OC(=O)c1ccccc1O', 'CC(=O)Nc1ccc(O)cc1'];

/** /batch_search in centroid mode on `s`: the neighbours and the coverage header. */
async function centroidSearch(s: TestStack) {
  const inputs = CENTROID_INPUTS.map((x) => `search_input=${encodeURIComponent(x)}`).join('&');
  const res = await s.stack.app.inject({
    method: 'GET',
    url: `/batch_search?${inputs}&search_type=morgan&search_mode=centroid&db_names=fleetcat&n_neighbors=100`,
    headers: { 'x-api-key': s.keyA },
  });
  expect(res.statusCode).toBe(200);
  const body = res.json() as { neighbors: { id: string; similarity: number }[]; warnings?: string[] };
  const header = res.headers['x-molsearch-coverage'];
  return { ...body, coverage: header === undefined ? undefined : Number(header) };
}

/** The shards a partial-coverage message names. */
const missingIn = (message: string) =>
  [...message.matchAll(/fleetcat\/shard-(\d{5})/g)].map((x) => Number(x[1]));

/** The top 100 equals the single-process result (equal scores may come in either order). */
function expectReferenceTop(neighbours: { id: string; similarity: number }[]) {
  expect(neighbours.map((n) => Number(n.similarity.toFixed(5)))).toEqual(reference.similarity.slice(0, 100));
  const edge = reference.similarity[99];
  const above = reference.id.filter((_, i) => reference.similarity[i] > edge + 1e-6);
  expect(above.length).toBeGreaterThan(50);
  expect(new Set(neighbours.slice(0, above.length).map((n) => n.id))).toEqual(new Set(above));
}

const parts = async (job: string) => (await bucket.list(`jobs/${job}/parts/`)).length;

beforeAll(async () => {
  try {
    await admin(`CREATE DATABASE ${dbName}`);
  } catch (err) {
    pgReachable = false;
    console.warn(
      `\n\u26a0\ufe0f  PostgreSQL unreachable (${(err as Error).message}): fleet tests SKIPPED.\n`,
    );
    return;
  }
  dir = await tempDir('fleet');
  const built = join(dir, 'built');
  await writeSyntheticCatalog(built, 'fleetcat', 120_000, 8_192, 11);
  await writeSyntheticCatalog(built, 'fleetbad', 20_000, 5_000, 12);
  const s3 = {
    S3_ENDPOINT: inject('s3Endpoint'),
    S3_BUCKET: `fleet-${randomBytes(4).toString('hex')}`,
    S3_ACCESS_KEY_ID: 'test',
    S3_SECRET_ACCESS_KEY: 'test',
    S3_FORCE_PATH_STYLE: 'true',
  };
  bucket = createS3ObjectStore({
    endpoint: s3.S3_ENDPOINT,
    region: 'us-east-1',
    bucket: s3.S3_BUCKET,
    accessKeyId: 'test',
    secretAccessKey: 'test',
    forcePathStyle: true,
  });
  await bucket.ensureBucket();
  for (const id of ['fleetcat', 'fleetbad']) await publishCatalog({ dir: join(built, id), store: bucket });

  // Single process: the job's activities over the local directory.
  const { openStore } = await import('../../store/index.ts');
  const { DEFAULT_TIER_LIMITS } = await import('../../platform/config.ts');
  const store = await openStore({ pgliteDir: 'memory://', tierLimits: DEFAULT_TIER_LIMITS });
  const objects = createLocalObjectStore(join(dir, 'ref-objects'));
  const acts = createJobActivities({
    log: createLogger({ level: 'warn', pretty: false }),
    jobs: store.jobs,
    objects,
    catalogDir: built,
  });
  const prep = await acts.jobPrepare({ jobName: 'ref', smiles: QUERY, dbNames: ['fleetcat'] });
  const ps = [];
  for (const s of prep.shards)
    ps.push({
      ...s,
      ...(await acts.jobScanShard({
        jobName: 'ref',
        catalog: 'fleetcat',
        shard: s.shard,
        fp: prep.fp,
        k: K,
      })),
    });
  const merged = await acts.jobMerge({ jobName: 'ref', parts: ps, k: K, fp: prep.fp, query: prep.canonical });
  const r = decodeJobResult(await objects.getBytes(merged.key));
  reference = { id: Array.from(r.id), similarity: Array.from(r.similarity, (x) => Number(x.toFixed(5))) };
  await store.close();

  const url = new URL(adminUrl);
  url.pathname = `/${dbName}`;
  env = stackEnv(join(dir, 'data-api'), join(dir, 'empty'), inject('temporalAddress'), prefix, {
    DATABASE_URL: url.toString(),
    ...s3,
    FLEET_HEARTBEAT_MS: '500',
    FLEET_STALE_MS: '4000',
  });
  api = await startTestStack(env, { worker: false });
  fleetApi = await startTestStack(
    { ...env, DATA_DIR: join(dir, 'data-fleet-api'), FLEET_SEARCH: 'true', SEARCH_BUDGET_MS: '3000' },
    { worker: false },
  );
  temporal = new Client({ connection: await Connection.connect({ address: inject('temporalAddress') }) });
  // The API verified both catalogs at start; now one shard object is damaged before any worker reads it.
  const key = catalogKey('fleetbad', 'shard-00002.arrow');
  const bad = Uint8Array.from(await bucket.getBytes(key));
  bad[bad.length >> 1] ^= 0xff;
  await bucket.put(key, bad);
  await Promise.all(['w1', 'w2', 'w3'].map(spawnWorker));
}, 300_000);

afterAll(async () => {
  for (const w of workers.values()) if (w.exitCode === null && w.signalCode === null) w.kill('SIGKILL');
  await api?.stack.stop();
  await fleetApi?.stack.stop();
  await temporal?.connection.close();
  if (pgReachable) await admin(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => {});
});

describe('a fleet of three scan-worker processes over catalogs in S3', () => {
  it('spreads the shards over the workers and a job equals the single-process result, placed on holders', async (ctx) => {
    if (!pgReachable) ctx.skip();
    const members = await placed('fleetcat', 3);
    for (const m of members) expect(m.held.filter((h) => h.catalog === 'fleetcat').length).toBeGreaterThan(0);
    const q = `/submit_molsearch?search_input=${encodeURIComponent(QUERY)}&search_type=morgan&db_names=fleetcat&n_neighbors=${K}`;
    const job = (await call(api, 'GET', q, api.keyA)).body as string;
    expect(await waitStatus(api, api.keyA, job, 120_000)).toBe('SUCCESS');
    const got = await rows(job);
    expect(got.id).toEqual(reference.id);
    expect(got.similarity).toEqual(reference.similarity);
    // Every scan went to a worker's own queue (the holder), none to the shared one.
    const queues = await scanQueues(job);
    expect(queues).toHaveLength(SHARDS);
    expect(new Set(queues)).toEqual(new Set(members.map((m) => m.queue)));

    // The synchronous search answers from the catalog the API fetched from S3: the same top rows.
    const s = await call(
      api,
      'GET',
      `/molsearch?search_input=${encodeURIComponent(QUERY)}&search_type=morgan&db_names=fleetcat&n_neighbors=100`,
      api.keyA,
    );
    expect(s.status).toBe(200);
    expectReferenceTop(s.body.neighbors);
    // And fanned out over the three workers by an API that holds no shard: the same rows, full coverage.
    const f = await fleetSearch();
    expect(f.coverage).toBe(1);
    expect(f.warnings).toBeUndefined();
    expectReferenceTop(f.neighbors);
    // /batch_search in batch mode fans out per query: the same rows for each, full coverage.
    const b = await fleetApi.stack.app.inject({
      method: 'GET',
      url: `/batch_search?search_input=${encodeURIComponent(QUERY)}&search_input=${encodeURIComponent(QUERY)}&search_type=morgan&search_mode=batch&db_names=fleetcat&n_neighbors=100`,
      headers: { 'x-api-key': fleetApi.keyA },
    });
    expect(b.statusCode).toBe(200);
    expect(Number(b.headers['x-molsearch-coverage'])).toBe(1);
    const batch = b.json() as { neighbors: { id: string; similarity: number }[] }[];
    expect(batch).toHaveLength(2);
    for (const r of batch) expectReferenceTop(r.neighbors);

    // Operations: /health shows the fleet, /metrics the latency, placement and queues; each worker
    // exports its shard cache.
    const health = await fleetApi.stack.app.inject({ method: 'GET', url: '/health' });
    expect(health.json().checks.fleet).toMatchObject({
      ok: true,
      detail: { members: ['w1', 'w2', 'w3'], uncovered: { fleetcat: [] } },
    });
    // At least every shard once (the job's merge also loaded shards on the worker that ran it).
    expect(health.json().checks.fleet.detail.shards_held).toBeGreaterThanOrEqual(SHARDS);
    const metrics = (await fleetApi.stack.app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(metrics).toMatch(/^fleet_members 3$/m);
    expect(metrics).toMatch(/^fleet_uncovered_shards\{catalog="fleetcat"\} 0$/m);
    expect(metrics).toMatch(
      /^http_request_duration_seconds_count\{method="GET",route="\/molsearch",status="200"\} 1$/m,
    );
    expect(metrics).toMatch(
      new RegExp(`^temporal_task_queue_backlog\\{queue="${prefix}-scan"\\} \\d+$`, 'm'),
    );
    const w = await (await fetch(`${members[0].scanUrl}/metrics`)).text();
    expect(w).toMatch(/^shard_cache_misses_total\{layer="memory"\} [1-9]/m);
    expect(w).toMatch(/^scans_total [1-9]/m);
  }, 200_000);

  it('v2 search, centroid batch and embedding search fanned out equal the API holding the catalog', async (ctx) => {
    if (!pgReachable) ctx.skip();
    await placed('fleetcat', 3);
    // v2: every field of every hit (scores, prices, properties, predictions) as the API that
    // loaded the catalog from S3 answers them; full coverage, no warning.
    const here = await v2Search(api);
    const fleet = await v2Search(fleetApi);
    expect(fleet.counts).toEqual({ returned: 200, scanned: 120_000, coverage: 1 });
    expect(here.counts).toEqual({ returned: 200, scanned: 120_000 });
    expect(fleet.warnings).toEqual([]);
    expect(fleet.results).toEqual(here.results);
    // Its top 100 is the single-process job's.
    expectReferenceTop(fleet.results.slice(0, 100).map((r) => ({ id: r.product_id, similarity: r.score })));

    // Centroid: the mean bit-frequency vector scanned by the workers, the same neighbours and scores.
    const c = await centroidSearch(fleetApi);
    const cHere = await centroidSearch(api);
    expect(c.coverage).toBe(1);
    expect(cHere.coverage).toBeUndefined();
    expect(c.warnings).toBeUndefined();
    expect(c.neighbors).toHaveLength(100);
    expect(c.neighbors).toEqual(cHere.neighbors);

    // A weighted (non-binary) Morgan embedding: the continuous Tanimoto over the fleet as well.
    const embedding = Array.from({ length: 2048 }, (_, i) => ((i * 7919) % 13) / 12);
    const embed = (s: TestStack) =>
      s.stack.app.inject({
        method: 'POST',
        url: '/molsearch_embedding?search_type=morgan&db_names=fleetcat&n_neighbors=50',
        headers: { 'x-api-key': s.keyA, 'content-type': 'application/json' },
        payload: JSON.stringify({ embedding }),
      });
    const [e, eHere] = [await embed(fleetApi), await embed(api)];
    expect(e.statusCode).toBe(200);
    expect(Number(e.headers['x-molsearch-coverage'])).toBe(1);
    expect(e.json().neighbors).toHaveLength(50);
    expect(e.json().neighbors).toEqual(eHere.json().neighbors);

    // /molsearch_array (one fan-out per query): the same rows and the coverage header.
    const array = (s: TestStack) =>
      s.stack.app.inject({
        method: 'GET',
        url: `/molsearch_array?${CENTROID_INPUTS.map((x) => `search_input=${encodeURIComponent(x)}`).join('&')}&search_type=morgan&db_names=fleetcat&n_neighbors=20`,
        headers: { 'x-api-key': s.keyA },
      });
    const [arr, arrHere] = [await array(fleetApi), await array(api)];
    expect(arr.statusCode).toBe(200);
    expect(Number(arr.headers['x-molsearch-coverage'])).toBe(1);
    expect(arrHere.headers['x-molsearch-coverage']).toBeUndefined();
    const neighbours = (r: typeof arr) => (r.json() as { neighbors: unknown[] }[]).map((x) => x.neighbors);
    expect(neighbours(arr)).toHaveLength(3);
    expect(neighbours(arr)).toEqual(neighbours(arrHere));

    // What still needs every row of the catalog says so, naming the capability.
    const sample = await call(fleetApi, 'POST', '/api/v2/sample', fleetApi.keyA, { database_id: 'fleetcat' });
    expect(sample.status).toBe(422);
    expect(sample.body.error.code).toBe('capability_unavailable');

    // The v2 catalog lists the fleet catalog (a client discovers it there): its size and pricing
    // as the API holding it reports them, and only the capability the fleet serves.
    const listed = async (s: TestStack) => {
      const r = await call(s, 'GET', '/api/v2/catalog', s.keyA);
      expect(r.status).toBe(200);
      const libs = (r.body as { libraries: Record<string, unknown>[] }).libraries;
      return libs.find((l) => l.database_id === 'fleetcat')!;
    };
    const [entry, entryHere] = [await listed(fleetApi), await listed(api)];
    expect(entry).toMatchObject({ kind: 'enumerated', product_count: entryHere.product_count });
    const { constraints, ...pricing } = entry.pricing as Record<string, unknown>;
    const { constraints: _here, ...pricingHere } = entryHere.pricing as Record<string, unknown>;
    expect(pricing).toEqual(pricingHere);
    // Selections (and so constraints.price) need every row: the fleet's entry offers none.
    expect(constraints).toEqual([]);
    expect(entry.capabilities).toMatchObject({ search: true, sample: false, selections: false });

    // A selection over it needs every row: 422 capability_unavailable saying so, not "unknown database".
    const sel = await call(fleetApi, 'POST', '/api/v2/selections', fleetApi.keyA, {
      schema_version: 'molecule-selection/1',
      database: { database_id: 'fleetcat' },
      strategy: { type: 'ranked' },
      references: [{ id: 'q', structure: { format: 'smiles', value: 'CC(=O)Oc1ccccc1C(=O)O' } }],
      objectives: [
        { type: 'similarity', direction: 'maximize', metric_id: 'rdkit.ecfp4_tanimoto', reference_id: 'q' },
      ],
      portfolio: { limit: 3 },
    });
    expect(sel.status).toBe(422);
    expect(sel.body.error.code).toBe('capability_unavailable');
    expect(sel.body.error.message).toMatch(/scan fleet/);
  }, 120_000);

  it('a holder that does not answer within the budget: the search says which shards are missing', async (ctx) => {
    if (!pgReachable) ctx.skip();
    const members = await placed('fleetcat', 3);
    // A member that announces every shard and never answers (a hung worker).
    const hung = createServer(() => {});
    await new Promise<void>((ok) => hung.listen(0, '127.0.0.1', ok));
    const held = members.flatMap((m) => m.held.filter((h) => h.catalog === 'fleetcat'));
    const fake = {
      ...members[0],
      workerId: 'w-hung',
      queue: `${prefix}-scan-w-hung`,
      scanUrl: `http://127.0.0.1:${(hung.address() as AddressInfo).port}`,
      at: new Date().toISOString(),
      held,
    };
    await writeMember(bucket, prefix, fake);
    // Its heartbeat: the record stays fresh (FLEET_STALE_MS) through the searches below.
    let beating = Promise.resolve();
    const beat = setInterval(() => {
      beating = writeMember(bucket, prefix, { ...fake, at: new Date().toISOString() }).catch(() => {});
    }, 1000);
    try {
      await new Promise((r) => setTimeout(r, 1100)); // the API's membership cache
      const t0 = Date.now();
      const f = await fleetSearch();
      expect(Date.now() - t0).toBeLessThan(3000 + 2000);
      // The shards routed to the hung member are missing, named, and counted in the coverage.
      expect(f.warnings).toHaveLength(1);
      const m = /answered from (\d+) of (\d+) shards/.exec(f.warnings![0])!;
      expect(Number(m[2])).toBe(SHARDS);
      const missing = [...f.warnings![0].matchAll(/fleetcat\/shard-(\d{5})/g)].map((x) => Number(x[1]));
      expect(missing.length).toBeGreaterThan(0);
      expect(missing.length).toBe(SHARDS - Number(m[1]));
      const rowsOf = (i: number) => Math.min(8_192, 120_000 - i * 8_192);
      const lost = missing.reduce((n, i) => n + rowsOf(i), 0);
      expect(f.coverage).toBeCloseTo(1 - lost / 120_000, 4);
      // The answer still carries the best rows of the shards that did answer.
      expect(f.neighbors).toHaveLength(100);

      // v2 search: the same shards missing, as a partial_coverage warning and counts.coverage.
      const v = await v2Search(fleetApi, 50);
      expect(v.warnings).toHaveLength(1);
      expect(v.warnings[0].code).toBe('partial_coverage');
      expect(missingIn(v.warnings[0].message)).toEqual(missing);
      expect(v.counts.coverage).toBeCloseTo(1 - lost / 120_000, 9);
      expect(v.counts.scanned).toBe(120_000 - lost);
      expect(v.results).toHaveLength(50);
      // Centroid batch: the same warning and coverage header.
      const c = await centroidSearch(fleetApi);
      expect(c.warnings).toHaveLength(1);
      expect(missingIn(c.warnings![0])).toEqual(missing);
      expect(c.coverage).toBeCloseTo(1 - lost / 120_000, 4);
      expect(c.neighbors).toHaveLength(100);
    } finally {
      clearInterval(beat);
      await beating; // a write still under way would bring the record back after its removal
      await removeMember(bucket, prefix, 'w-hung');
      hung.closeAllConnections();
      hung.close();
    }
  }, 120_000);

  it('SIGKILL of a shard holder mid-job: the job finishes with identical results, that shard scanned by another worker', async (ctx) => {
    if (!pgReachable) ctx.skip();
    const members = await placed('fleetcat', 3);
    const q = `/submit_molsearch?search_input=${encodeURIComponent(QUERY)}&search_type=morgan&db_names=fleetcat&n_neighbors=${K}`;
    const job = (await call(api, 'GET', q, api.keyA)).body as string;
    const until = Date.now() + 60_000;
    while ((await parts(job)) === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    // The holder of a shard not scanned yet.
    const done = new Set(
      (await bucket.list(`jobs/${job}/parts/`)).map((k) => Number(/-(\d+)\.bin$/.exec(k)![1])),
    );
    const victim = members.find((m) => m.held.some((h) => h.catalog === 'fleetcat' && !done.has(h.shard)))!;
    const status = (await call(api, 'GET', `/job_status?job_name=${job}`, api.keyA)).body;
    workers.get(victim.workerId)!.kill('SIGKILL');
    expect(status).toBe('STARTED');
    expect(done.size).toBeLessThan(SHARDS);
    expect(await waitStatus(api, api.keyA, job, 150_000)).toBe('SUCCESS');
    const got = await rows(job);
    expect(got.id).toEqual(reference.id);
    expect(got.similarity).toEqual(reference.similarity);
    // Scans placed on the dead worker's queue were moved to the shared scan queue.
    const queues = await scanQueues(job);
    expect(queues).toContain(victim.queue);
    expect(queues).toContain(`${prefix}-scan`);
    // The survivors drop the dead member and take over its shards.
    const after = await placed('fleetcat', 2);
    expect(after.map((m) => m.workerId)).not.toContain(victim.workerId);
    await new Promise((r) => setTimeout(r, 1100)); // the API's membership cache
    const f = await fleetSearch();
    expect(f.coverage).toBe(1);
    expectReferenceTop(f.neighbors);
  }, 300_000);

  it('a shard corrupted in S3 is detected by checksum: the job fails naming it, nothing is scored', async (ctx) => {
    if (!pgReachable) ctx.skip();
    const q = `/submit_molsearch?search_input=${encodeURIComponent(QUERY)}&search_type=morgan&db_names=fleetbad&n_neighbors=100`;
    const job = (await call(api, 'GET', q, api.keyA)).body as string;
    expect(await waitStatus(api, api.keyA, job, 120_000)).toBe('FAILURE');
    const info = await call(api, 'GET', `/job_info?job_name=${job}`, api.keyA);
    expect(JSON.stringify(info.body)).toMatch(/shard 2 of catalog fleetbad is corrupt/);
    expect(await bucket.head(`jobs/${job}/parts/fleetbad-2.bin`)).toBeUndefined();
    // No live worker announces the corrupt shard.
    for (const m of await live())
      expect(m.held.some((h) => h.catalog === 'fleetbad' && h.shard === 2)).toBe(false);
  }, 200_000);
});
