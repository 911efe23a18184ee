// v2 search and sample on a synthon space: real space pool thread, real RDKit, checked against
// brute force over RDKit's enumeration (test/fixtures/synthons/similarity-reference.json).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSpace } from '../../../engine/synthons/build-space.ts';
import { createSpacePool, type SpacePool } from '../../../engine/synthons/space-pool.ts';
import { withV2Spaces } from '../../../api/services/v2-space-search.ts';
import type { V2SearchService } from '../../../api/services/v2-search.ts';

const SOURCES = new URL('../../../catalogs/spaces/sources/', import.meta.url).pathname;
const FIXTURE = new URL('../../fixtures/synthons/similarity-reference.json', import.meta.url);
let root: string;
let pool: SpacePool;
let v2: V2SearchService;
let fixture: { spaces: Record<string, Array<{ query: string; top: Array<[string, number]> }>> };

/** The catalog side is not under test here: it answers only what a space does not take. */
const catalogSide = {
  catalog: async () => ({ libraries: [] }),
  search: async () => {
    throw new Error('catalog search called for a space');
  },
  sample: async () => {
    throw new Error('catalog sample called for a space');
  },
} as unknown as V2SearchService;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'v2-spaces-'));
  fixture = JSON.parse(await readFile(FIXTURE, 'utf8'));
  const { manifest } = await buildSpace({
    input: join(SOURCES, 'idorsia_toy_space_a.txt'),
    out: join(root, 'idorsia'),
    id: 'idorsia',
  });
  pool = createSpacePool({ dirs: [join(root, 'idorsia')] });
  v2 = withV2Spaces(catalogSide, [{ manifest, vendor: 'Idorsia', website: 'https://example.org' }], pool);
});
afterAll(async () => {
  await pool?.close();
  await rm(root, { recursive: true, force: true });
});

describe('v2 on synthon spaces', () => {
  it('the catalog lists the space with kind, product and reaction counts', async () => {
    const { libraries } = await v2.catalog();
    expect(libraries).toEqual([
      expect.objectContaining({
        database_id: 'idorsia',
        kind: 'synthon',
        product_count: 29200,
        reaction_count: 6,
        synthon_count: 312,
      }),
    ]);
  });

  it('search returns the exact top hits with reaction ids and, on request, synthons', async () => {
    const e = fixture.spaces.idorsia_toy_space_a[2];
    const req = { query_smiles: e.query, database_id: 'idorsia', limit: 10, include_properties: false };
    const res = (await v2.search({ ...req, include_synthons: true }, 'r1')) as unknown as {
      results: Array<{
        score: number;
        reaction_id: string;
        product_id: string;
        synthons: Array<{ slot: number; synthon_id: string }>;
      }>;
      counts: Record<string, number>;
    };
    expect(res.results.map((r) => r.score)).toEqual(e.top.slice(0, 10).map((t) => expect.closeTo(t[1], 5)));
    const hit = res.results[0];
    expect(hit.product_id.split(';')).toEqual([hit.reaction_id, ...hit.synthons.map((s) => s.synthon_id)]);
    expect(res.counts.assembled).toBeGreaterThanOrEqual(10);
    const bare = (await v2.search({ ...req, include_synthons: false }, 'r2')) as unknown as {
      results: Array<Record<string, unknown>>;
    };
    expect(bare.results[0].synthons).toBeUndefined();
  });

  it('a bad query SMILES is a validation error naming query_smiles', async () => {
    const req = { query_smiles: 'C1CC', database_id: 'idorsia', limit: 5, include_properties: false };
    await expect(v2.search({ ...req, include_synthons: false }, 'r3')).rejects.toMatchObject({
      issues: [expect.objectContaining({ loc: ['body', 'query_smiles'] })],
    });
  });

  it('sample is route_product_tuple, seeded and reproducible', async () => {
    const req = {
      database_id: 'idorsia',
      count: 20,
      seed: 11,
      include_synthons: true,
      include_properties: false,
    };
    const a = (await v2.sample(req, 's1')) as unknown as {
      sampling_method: string;
      sampling_version: unknown;
      results: Array<{ product_id: string; reaction_id: string }>;
    };
    const b = (await v2.sample(req, 's2')) as unknown as typeof a;
    expect(a.sampling_method).toBe('route_product_tuple');
    expect(a.sampling_version).toBe('1'); // a string: the released v2 SDK rejects an integer
    expect(a.results).toHaveLength(20);
    expect(a.results.map((r) => r.product_id)).toEqual(b.results.map((r) => r.product_id));
    expect(a.results.every((r) => r.product_id.startsWith(`${r.reaction_id};`))).toBe(true);
  });
});
