import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { writeSyntheticCatalog } from '../../testkit/synthetic-catalog.ts';
import { call, stackEnv, startTestStack, tempDir, waitStatus, type TestStack } from './support/stack.ts';

// The analysis routes over a real finished job: the shared Temporal dev server, PGlite, the local
// object store, a synthetic catalog of 4,000 rows, the API through inject().
let s: TestStack;
let job: string;
let page: Record<string, any[]>;
const ASPIRIN = 'CC(=O)Oc1ccccc1C(=O)O';

beforeAll(async () => {
  const dir = await tempDir('analysis-jobs');
  const catalogDir = join(dir, 'catalogs');
  await writeSyntheticCatalog(catalogDir, 'synth', 4_000, 2_000);
  const prefix = `analysis-${randomBytes(4).toString('hex')}`;
  s = await startTestStack(stackEnv(join(dir, 'data'), catalogDir, inject('temporalAddress'), prefix));
  const r = await call(
    s,
    'GET',
    `/submit_molsearch?search_input=${encodeURIComponent(ASPIRIN)}&search_type=morgan&db_names=synth&n_neighbors=600`,
    s.keyA,
  );
  job = r.body;
  expect(await waitStatus(s, s.keyA, job)).toBe('SUCCESS');
  page = (
    await call(
      s,
      'POST',
      `/get_molsearch_page?job_name=${job}&page_size=600&page_num=0&include_properties=true`,
      s.keyA,
      {},
    )
  ).body;
});
afterAll(async () => {
  await s?.stack.stop();
});

/** numpy.histogram counts over equal-width edges [lo, hi] (the last bin includes hi). */
function numpyCounts(values: number[], lo: number, hi: number, bins: number): number[] {
  const counts = new Array(bins).fill(0);
  const w = (hi - lo) / bins;
  for (const x of values) {
    if (!Number.isFinite(x) || x < lo || x > hi) continue;
    counts[x === hi ? bins - 1 : Math.min(bins - 1, Math.floor((x - lo) / w))]++;
  }
  return counts;
}

describe("GET /histograms over a job's results", () => {
  it('counts similarity over [0, 1] and a property over its own range, as numpy.histogram', async () => {
    const r = await call(
      s,
      'GET',
      `/histograms?job_name=${job}&columns=similarity&columns=clogp&bins=10`,
      s.keyA,
    );
    expect(r.status, r.raw).toBe(200);
    expect(r.body.rows).toBe(600);
    const sim = r.body.histograms.similarity;
    expect(sim.edges[0]).toBe(0);
    expect(sim.edges[10]).toBe(1);
    // the page rounds similarities to 5 decimals: compare away from the edges' neighbourhood
    expect(sim.counts.reduce((a: number, b: number) => a + b, 0)).toBe(600);
    expect(sim.counts).toEqual(numpyCounts(page.similarity, 0, 1, 10));
    const clogp = page.clogp.filter((x) => x !== null) as number[];
    const h = r.body.histograms.clogp;
    expect(h.missing).toBe(600 - clogp.length);
    expect(h.edges[0]).toBeCloseTo(Math.min(...clogp), 4);
    expect(h.edges[10]).toBeCloseTo(Math.max(...clogp), 4);
    expect(h.counts.reduce((a: number, b: number) => a + b, 0)).toBe(clogp.length);
  });

  it('keeps rows at or above sim_th, and refuses unknown columns and other users', async () => {
    // the page's similarities are rounded to 5 decimals: bound the count by the rounding
    const th = page.similarity[99] - 1e-5;
    const r = await call(s, 'GET', `/histograms?job_name=${job}&sim_th=${th}`, s.keyA);
    expect(r.body.rows).toBeGreaterThanOrEqual(page.similarity.filter((x: number) => x >= th + 5e-6).length);
    expect(r.body.rows).toBeLessThanOrEqual(page.similarity.filter((x: number) => x >= th - 5e-6).length);
    expect(r.body.rows).toBeGreaterThanOrEqual(100);
    const bad = await call(s, 'GET', `/histograms?job_name=${job}&columns=colour`, s.keyA);
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['query', 'columns']);
    expect(bad.raw).toContain('clogp');
    expect((await call(s, 'GET', `/histograms?job_name=${job}`, s.keyB)).status).toBe(404);
  });
});

describe("GET /visualize of a job's results", () => {
  // The first call starts the analysis thread (RDKit) next to the in-process Temporal worker.
  it('maps the best max_molecules rows, the same as mapping their SMILES', { timeout: 240_000 }, async () => {
    const r = await call(s, 'GET', `/visualize?job_name=${job}&max_molecules=40`, s.keyA);
    expect(r.status, r.raw).toBe(200);
    expect(r.body.coordinates).toHaveLength(40);
    const list = page.smiles.slice(0, 40).map((x: string) => `search_input=${encodeURIComponent(x)}`);
    const direct = await call(s, 'GET', `/visualize?${list.join('&')}`, s.keyA);
    expect(direct.body.coordinates).toEqual(r.body.coordinates);
  });
});

describe('POST /get_download_link', () => {
  it('starts a download once, then answers the same one READY with its URL', async () => {
    const url = `/get_download_link?job_name=${job}&file_format=csv&include_properties=true`;
    const first = await call(s, 'POST', url, s.keyA, {});
    expect(first.status, first.raw).toBe(200);
    expect(first.body).toMatchObject({ job_name: job, file_format: 'csv' });
    const id = first.body.download_id;
    expect(id).toMatch(/^dl_/);
    let status = first.body.status;
    const until = Date.now() + 60_000;
    while (status !== 'READY' && status !== 'FAILURE' && Date.now() < until) {
      await new Promise((res) => setTimeout(res, 200));
      status = (await call(s, 'GET', `/download_link?download_id=${id}`, s.keyA)).body.status;
    }
    expect(status).toBe('READY');
    const again = await call(s, 'POST', url, s.keyA, {});
    expect(again.body).toMatchObject({ status: 'READY', download_id: id });
    expect(new URL(again.body.url).pathname).toBe(`/downloads/${id}/csv`);
    const other = await call(s, 'POST', `/get_download_link?job_name=${job}&file_format=json`, s.keyA, {});
    expect(other.body.download_id).not.toBe(id);
    expect(
      (await call(s, 'POST', `/get_download_link?job_name=${job}&file_format=pdf`, s.keyA, {})).status,
    ).toBe(422);
  });
});
