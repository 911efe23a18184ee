// A synthon space still being built in the background (the 10^9-product default space for its
// first minutes) is named as coming, with its progress, not as an unknown database: on the
// legacy endpoints (db_names) and on v2 (database_id); a v2 unknown database lists the spaces.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spaceNotReady } from '../../../api/services/space-search.ts';
import { pendingSpaces } from '../../../api/services/pending-databases.ts';
import type { SearchService } from '../../../api/services/search-service.ts';
import { createSynthonJobService, type SynthonJobRequest } from '../../../api/services/synthon-jobs.ts';
import { SYNTHON_SIMILARITY_DEFAULTS, synthonTarget } from '../../../api/routes/legacy/jobs-target.ts';
import { queryFirst } from '../../../api/routes/legacy/params.ts';
import { createV2SearchService } from '../../../api/services/v2-search.ts';
import { DomainError } from '../../../platform/errors.ts';
import { staticRegistry } from '../../../engine/selection/index.ts';
import { createSubstructureRunner } from '../../../engine/substructure/index.ts';
import { buildSpace } from '../../../engine/synthons/build-space.ts';
import type { BackgroundBuild } from '../../../engine/synthons/bundled.ts';
import { startApiHarness, type ApiHarness } from '../../support/api-harness.ts';

const SOURCES = new URL('../../../catalogs/spaces/sources/', import.meta.url).pathname;
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
  info: { name: 'Big space', vendor: 'test', website: '', license: 'test', products: 1_000_000_000 },
};
const failed: BackgroundBuild = {
  id: 'broken_space',
  status: 'failed',
  startedAt: '2026-11-24T13:00:00.000Z',
  error: 'no space left on device',
};
let root: string;
let h: ApiHarness;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'space-not-ready-'));
  await buildSpace({ input: join(SOURCES, 'amide_space.txt'), out: join(root, 'amide'), id: 'amide' });
  h = await startApiHarness([], { spaceDirs: [join(root, 'amide')], spaceBuilds: [building, failed] });
}, 120_000);
afterAll(async () => {
  await h?.close();
  await rm(root, { recursive: true, force: true });
});

describe('spaceNotReady', () => {
  it('says a building space is coming, with its progress and an estimate; a failed build, why', () => {
    const b = spaceNotReady([building, failed], 'big_space')!;
    expect(b).toMatch(/big_space is being built in the background since 2026-11-24T13:00:00.000Z/);
    expect(b).toMatch(/30% done \(160000 of its 640000 synthon rows read\), about 3 min to go/);
    expect(spaceNotReady([building, failed], 'broken_space')).toMatch(/could not be built \(no space left/);
    expect(spaceNotReady([building, { ...building, id: 'done', status: 'ready' }], 'done')).toBeUndefined();
    expect(spaceNotReady([building], 'nope')).toBeUndefined();
  });
});

describe('legacy endpoints', () => {
  it('answer 422 not_ready naming db_names for a space being built, and unknown for other names', async () => {
    const get = (q: string) =>
      h.app.inject({
        method: 'GET',
        url: `/molsearch?search_input=CCO&search_type=morgan&${q}`,
        headers: { 'X-API-Key': h.key },
      });
    const res = await get('db_names=big_space');
    expect(res.statusCode).toBe(422);
    const d = res.json().detail[0];
    expect(d).toMatchObject({ loc: ['query', 'db_names'], type: 'value_error.not_ready' });
    expect(d.msg).toMatch(/being built.*30% done/);
    const unknown = (await get('db_names=nope')).json().detail[0];
    expect(unknown.msg).toMatch(/unknown database "nope"; available: .*amide/);
    // A misspelt name is told the spaces that are coming too (user trial), with their state.
    expect(unknown.msg).toMatch(
      /not ready yet: big_space \(being built, 30% done\), broken_space \(build failed\)/,
    );
    expect((await get('db_names=amide')).statusCode).toBe(200);
  });

  it('name a bad query SMILES before saying the space is not ready (the query is checked first)', async () => {
    const res = await h.app.inject({
      method: 'GET',
      url: '/molsearch?search_input=C1CC(&search_type=morgan&db_names=big_space',
      headers: { 'X-API-Key': h.key },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().detail[0]).toMatchObject({ loc: ['query', 'search_input'] });
    expect(res.json().detail[0].type).not.toBe('value_error.not_ready');
  });

  it('name a bad query before a building space on /batch_search; an empty db_names lists the spaces coming', async () => {
    const get = (url: string) => h.app.inject({ method: 'GET', url, headers: { 'X-API-Key': h.key } });
    const res = await get(
      '/batch_search?search_input=CCO&search_input=C1CC(&search_type=morgan&db_names=big_space',
    );
    expect(res.statusCode).toBe(422);
    expect(res.json().detail[0].loc).toEqual(['query', 'search_input', 1]);
    const ok = await get('/batch_search?search_input=CCO&search_type=morgan&db_names=big_space');
    expect(ok.json().detail[0]).toMatchObject({ loc: ['query', 'db_names'], type: 'value_error.not_ready' });
    expect((await get('/molsearch?search_input=CCO&db_names=')).json().detail[0].msg).toMatch(
      /not ready yet: big_space/,
    );
  });

  it('/submit_molsearch: a building space named with synthongpt is not_ready, not "not a synthon space"', async () => {
    // synthonTarget and queryFirst, the route's two steps (its job side needs Temporal: jobs tests).
    const search = {
      databases: () => [{ id: 'amide', kind: 'synthon', molecules: 8 }],
      notReady: (id: string) => spaceNotReady([building], id),
    } as unknown as SearchService;
    const err = (() => {
      try {
        synthonTarget(search, ['big_space'], 'synthongpt');
      } catch (e) {
        return e as DomainError;
      }
    })();
    expect(err?.issues[0]).toMatchObject({ loc: ['query', 'db_names'], type: 'value_error.not_ready' });
    expect(synthonTarget(search, ['amide'], 'synthongpt')).toEqual({ space: 'amide' });
    // queryFirst: a not_ready check runs the query's own check first, whose 422 wins.
    const bad = new Error('bad query');
    await expect(
      queryFirst(
        () => synthonTarget(search, ['big_space'], 'synthongpt'),
        () => Promise.reject(bad),
      ),
    ).rejects.toBe(bad);
    await expect(
      queryFirst(
        () => synthonTarget(search, ['big_space'], 'synthongpt'),
        () => Promise.resolve(),
      ),
    ).rejects.toMatchObject({ code: 'validation_error' });
    // Other failures do not run the query check.
    let ran = false;
    await expect(
      queryFirst(
        () => {
          throw new Error('other');
        },
        async () => {
          ran = true;
        },
      ),
    ).rejects.toThrow('other');
    expect(ran).toBe(false);
  });

  it('synthongpt without db_names while the default space is built: 422 naming db_names with its progress', async () => {
    const res = await h.app.inject({
      method: 'GET',
      url: '/molsearch?search_input=CCO&search_type=synthongpt&n_neighbors=5',
      headers: { 'X-API-Key': h.key },
    });
    expect(res.statusCode).toBe(422);
    const d = res.json().detail[0];
    expect(d).toMatchObject({ loc: ['query', 'db_names'], type: 'value_error.not_ready' });
    expect(d.msg).toMatch(/default \(largest\) synthon space is not ready: .*30% done.*\(amide\)/);
  });
});

describe('synthon jobs', () => {
  // The job service's own check, before any workflow starts; the search service's listings are
  // those of a server with one small space served and the default one building.
  const search = {
    databases: () => [{ id: 'amide', kind: 'synthon', molecules: 8 }],
    notReady: (id: string) => spaceNotReady([building], id),
    pending: () => pendingSpaces([building], () => false),
  } as unknown as SearchService;
  const jobs = createSynthonJobService({ search });
  // The route's defaults (interface.md), a substructure job.
  const DEFAULTS: SynthonJobRequest = {
    ...SYNTHON_SIMILARITY_DEFAULTS,
    search_input: 'CCO',
    search_quality: '100',
    include_properties: true,
    sample_size: 100,
    search_mode: 'substructure',
  };

  const submit = (db_name?: string) =>
    jobs
      .submit('acc', { ...DEFAULTS, db_name }, { searchQuality: false, sampleSize: false })
      .catch((e: unknown) => e);

  it('with no db_name while the default (largest) space is built: 422 naming db_name, not a smaller space', async () => {
    const err = (await submit()) as DomainError;
    expect(err).toBeInstanceOf(DomainError);
    expect(err.issues[0]).toMatchObject({ loc: ['query', 'db_name'], type: 'value_error.not_ready' });
    expect(err.message).toMatch(
      /db_name not sent.*big_space is being built.*30% done.*ready synthon space \(amide\)/,
    );
    // Naming the small space passes this check (then fails only for want of a job store here).
    expect(String(await submit('amide'))).not.toMatch(/db_name/);
  });
});

describe('v2', () => {
  const substructure = createSubstructureRunner({ threads: 1 });
  afterAll(() => substructure.close());
  const v2 = createV2SearchService({
    libraries: staticRegistry([]),
    substructure,
    spaces: {
      ids: () => ['amide'],
      notReady: (id) => spaceNotReady([building], id),
      pending: () => pendingSpaces([building], () => false),
    },
  });
  const req = (database_id: string) => ({
    query_smiles: 'CCO',
    database_id,
    limit: 5,
    include_synthons: false,
    include_properties: false,
  });

  it('answers not_ready naming database_id for a space being built', async () => {
    const err = await v2.search(req('big_space'), 'r1').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).issues[0]).toMatchObject({
      loc: ['body', 'database_id'],
      type: 'value_error.not_ready',
    });
    expect((err as DomainError).message).toMatch(/big_space is being built/);
  });

  it('lists the synthon spaces among the available databases of an unknown one', async () => {
    const err = (await v2.search(req('nope'), 'r2').catch((e: unknown) => e)) as DomainError;
    expect(err.message).toMatch(/unknown database "nope"; available: amide; not ready yet: big_space/);
  });

  it('names a bad substructure query before saying the space is not ready', async () => {
    const sub = {
      query: { format: 'smiles' as const, value: 'c1ccccc1[' },
      database_id: 'big_space',
      limit: 5,
      timeout_seconds: 5,
      search_mode: 'substructure' as const,
      include_synthons: false,
    };
    const err = (await v2.substructure(sub, 'r4', false).catch((e: unknown) => e)) as DomainError;
    expect(err.issues[0]).toMatchObject({ loc: ['body', 'query', 'value'] });
    const nr = (await v2
      .substructure({ ...sub, query: { format: 'smiles', value: 'c1ccccc1' } }, 'r5', false)
      .catch((e: unknown) => e)) as DomainError;
    expect(nr.issues[0].type).toBe('value_error.not_ready');
    // Worth retrying later: the v2 envelope says retryable.
    expect(nr.retryable).toBe(true);
  });

  it('names a bad query_smiles before saying the space is not ready', async () => {
    const err = await v2
      .search({ ...req('big_space'), query_smiles: 'C1CC(' }, 'r3')
      .catch((e: unknown) => e);
    expect((err as DomainError).issues[0]).toMatchObject({ loc: ['body', 'query_smiles'] });
  });
});
