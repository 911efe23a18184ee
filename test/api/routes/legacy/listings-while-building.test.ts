// What the database listings say while a database is being built (user trial D5, D6): a synthon
// space built in the background is listed in every listing, with its state, progress and estimate,
// as not searchable yet; a catalog whose 3D stage runs reports the progress the not-ready 422 gives.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WorkflowClient } from '@temporalio/client';
import { buildSpace } from '../../../../engine/synthons/build-space.ts';
import type { BackgroundBuild } from '../../../../engine/synthons/bundled.ts';
import type { Catalog3dProgress } from '../../../../workflows/contracts.ts';
import { createThreeDStatus } from '../../../../api/services/three-d-status.ts';
import { createCheckReady } from '../../../../api/services/three-d-ready.ts';
import { buildReferenceCatalog } from '../../../support/fixture-catalog.ts';
import { startApiHarness, type ApiHarness } from '../../../support/api-harness.ts';

const SOURCES = new URL('../../../../catalogs/spaces/sources/', import.meta.url).pathname;
// As buildInBackground records the default space a quarter of the way through its build.
const building: BackgroundBuild = {
  id: 'big_space',
  status: 'building',
  startedAt: '2026-11-24T13:00:00.000Z',
  // The percent counts work (ring-core pairs weigh more than rows), so it is not 160k/640k.
  progress: {
    percent: 30.5,
    rows_done: 160_000,
    rows_total: 640_000,
    rejected: 0,
    rows_per_second: 4000,
    eta_seconds: 130,
  },
  info: {
    name: 'Big space',
    vendor: 'ZINC15',
    website: 'https://example.org',
    license: 'MIT',
    products: 10 ** 9,
  },
};
let root: string;
let h: ApiHarness;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'listings-building-'));
  await buildSpace({ input: join(SOURCES, 'amide_space.txt'), out: join(root, 'amide'), id: 'amide' });
  h = await startApiHarness([], {
    spaceDirs: [join(root, 'amide')],
    spaceBuilds: [building],
    v2Spaces: true,
  });
}, 120_000);
afterAll(async () => {
  await h?.close();
  await rm(root, { recursive: true, force: true });
});

const get = (url: string, harness = h) => harness.app.inject({ url, headers: { 'X-API-Key': harness.key } });
const buildBlock = {
  status: 'building',
  started_at: '2026-11-24T13:00:00.000Z',
  percent: 30,
  rows_done: 160_000,
  rows_total: 640_000,
  eta_seconds: 130,
  message: expect.stringMatching(
    /being built.*30% done \(160000 of its 640000 synthon rows read\), about 3 min to go/,
  ),
};

describe('a synthon space being built', () => {
  it('is in /available_databases with its size, as not searchable, beside the ready ones', async () => {
    const body = (await get('/available_databases')).json();
    expect(body.big_space).toMatchObject({
      name: 'Big space',
      vendor: 'ZINC15',
      number_of_molecules: 10 ** 9,
      status: 'building',
      searchable: false,
      build: buildBlock,
    });
    expect(body.amide).toMatchObject({ status: 'ready', searchable: true });
  });

  it('is in /available_databases_full as a synthon space with no search type yet, not the default', async () => {
    const body = (await get('/available_databases_full')).json();
    expect(body.big_space).toMatchObject({
      kind: 'synthon',
      search_types: [],
      searchable: false,
      status: 'building',
      default: false,
      build: buildBlock,
    });
    expect(body.amide).toMatchObject({ kind: 'synthon', status: 'ready', searchable: true });
  });

  it('is in /api/v2/catalog with no capability yet', async () => {
    const libs = (await get('/api/v2/catalog')).json().libraries;
    const big = libs.find((l: { database_id: string }) => l.database_id === 'big_space');
    expect(big).toMatchObject({
      kind: 'synthon',
      product_count: 10 ** 9,
      capabilities: { search: false, search_cheese: [], search_substructure: false, sample: false },
      status: 'building',
      searchable: false,
      build: buildBlock,
    });
  });

  it('gives in the listing the 422 a search naming it answers', async () => {
    const listed = (await get('/available_databases_full')).json().big_space.build.message;
    const res = await get('/molsearch?search_input=CCO&search_type=morgan&db_names=big_space');
    expect(res.statusCode).toBe(422);
    expect(res.json().detail[0].msg).toBe(listed);
  });
});

describe('a catalog whose 3D stage is running', () => {
  // The workflow's progress query, as the trial's wuxi catalog answered it ten minutes in.
  const progress: Catalog3dProgress = {
    state: 'embedding',
    shardsDone: 0,
    shardsTotal: 1,
    moleculesDone: 3328,
    moleculesTotal: 12_800,
    embedded: 3300,
    rejected: 28,
    startedAt: Date.now() - 600_000,
  };
  // A Temporal client whose 3D workflow is running (the only calls ThreeDStatus makes).
  const workflows = {
    getHandle: () => ({
      describe: async () => ({ status: { name: 'RUNNING' } }),
      query: async () => progress,
    }),
  } as unknown as WorkflowClient;
  let h3: ApiHarness;
  let threeD: ReturnType<typeof createThreeDStatus>;
  beforeAll(async () => {
    const built = await buildReferenceCatalog({ id: 'wuxi', take: (_m, i) => i < 20 });
    threeD = createThreeDStatus({ catalogs: [built.catalog], workflows });
    h3 = await startApiHarness([built.catalog], { threeD });
  }, 120_000);
  afterAll(() => h3?.close());

  it('lists its progress in snake_case with a percentage and an estimate, keeping the camelCase keys', async () => {
    const t = (await get('/available_databases_full', h3)).json().wuxi.three_d;
    expect(t.status).toBe('building');
    expect(t.progress).toMatchObject({
      state: 'embedding',
      molecules_done: 3328,
      molecules_total: 12_800,
      percent: 26,
      embedded: 3300,
      rejected: 28,
      shards_done: 0,
      shards_total: 1,
      started_at: new Date(progress.startedAt).toISOString(),
      moleculesDone: 3328,
      moleculesTotal: 12_800,
    });
    // 600 s for 3328 molecules, 9472 to go: at least 1708 s (more as the test runs).
    expect(t.progress.eta_seconds).toBeGreaterThanOrEqual(1708);
  });

  it('answers the 3D not-ready 422 with the listing numbers', async () => {
    const err = await createCheckReady(threeD)(['wuxi']).then(
      () => new Error('not refused'),
      (e: unknown) => e as Error,
    );
    expect(err.message).toMatch(
      /its 3D stage is running: 26% \(3328 of 12800 molecules: 3300 embedded, 28 rejected\), about \d+ min to go/,
    );
  });
});
