// Exactness of the space similarity search against brute force over RDKit's full enumerations
// (test/fixtures/synthons/similarity-reference.json, scripts/reference/make_synthon_fixtures.py).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getRDKit, type RDKitModule } from '../../../engine/chem/rdkit.ts';
import { buildSpace } from '../../../engine/synthons/build-space.ts';
import { openSpace, type OpenSpace } from '../../../engine/synthons/space.ts';
import { similaritySearch } from '../../../engine/synthons/similarity.ts';
import { morganOf } from './support/spaces.ts';

interface Entry {
  query: string;
  above_cutoff: Array<[string, number]>;
  top: Array<[string, number]>;
  rdkit_sss_hits: string[];
}
interface Fixture {
  cutoff: number;
  spaces: Record<string, Entry[]>;
}

const SOURCES = new URL('../../../catalogs/spaces/sources/', import.meta.url).pathname;
const FIXTURE = new URL('../../fixtures/synthons/similarity-reference.json', import.meta.url);
let root: string;
let rd: RDKitModule;
let fixture: Fixture;
const spaces = new Map<string, OpenSpace>();

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'space-sim-'));
  rd = await getRDKit();
  fixture = JSON.parse(await readFile(FIXTURE, 'utf8')) as Fixture;
  for (const name of Object.keys(fixture.spaces)) {
    const out = join(root, name);
    await buildSpace({ input: join(SOURCES, `${name}.txt`), out, id: name });
    spaces.set(name, await openSpace(out));
  }
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const fpOf = (smiles: string): Uint8Array => morganOf(rd, smiles);

describe('similaritySearch is exact', () => {
  it(
    'finds every product above the cutoff that brute force finds (recall 1.0), with equal scores',
    {
      timeout: 600_000,
    },
    () => {
      let want = 0;
      let found = 0;
      for (const [name, entries] of Object.entries(fixture.spaces)) {
        // The Idorsia space: the mutated-product queries (the drugs have no hit there and cost most).
        for (const e of name === 'idorsia_toy_space_a' ? entries.slice(0, 4) : entries) {
          const res = similaritySearch(rd, spaces.get(name)!, fpOf(e.query), { threshold: fixture.cutoff });
          const got = new Map(res.hits.map((h) => [h.smiles, h.similarity]));
          for (const [smiles, sim] of e.above_cutoff) {
            want++;
            if (got.has(smiles)) found++;
            expect(got.get(smiles), `${name}: ${e.query} → ${smiles}`).toBeCloseTo(sim, 5);
          }
          expect(res.hits.length).toBe(e.above_cutoff.length);
          expect(res.timedOut).toBe(false);
        }
      }
      expect(want).toBeGreaterThan(100);
      expect(found / want).toBe(1);
    },
  );

  it('top-k equals the brute-force top-k scores (k = 20)', { timeout: 300_000 }, () => {
    const e = fixture.spaces.idorsia_toy_space_a[2];
    const res = similaritySearch(rd, spaces.get('idorsia_toy_space_a')!, fpOf(e.query), {
      threshold: 0.4,
      maxHits: 20,
    });
    expect(res.hits.map((h) => Number(h.similarity.toFixed(6)))).toEqual(e.top.slice(0, 20).map((x) => x[1]));
    // Far fewer products were assembled than the space holds.
    expect(res.counts.assembled).toBeLessThan(29200 / 10);
  });

  it('hits carry decodable ids, the reaction and their synthons', () => {
    const e = fixture.spaces.urea_space[0];
    const res = similaritySearch(rd, spaces.get('urea_space')!, fpOf(e.query), { threshold: 0.45 });
    const h = res.hits[0];
    expect(h.productId.split(';')).toEqual([h.reactionId, ...h.synthons.map((s) => s.synthonId)]);
    expect(h.synthons.map((s) => s.slot)).toEqual([0, 1, 2]);
  });

  it('stops at the candidate limit with timedOut', () => {
    const e = fixture.spaces.idorsia_toy_space_a[0];
    const res = similaritySearch(rd, spaces.get('idorsia_toy_space_a')!, fpOf(e.query), {
      threshold: 0.1,
      maxCandidates: 50,
    });
    expect(res.timedOut).toBe(true);
    expect(res.counts.candidates).toBe(50);
  });

  it('a shared score map gives the same hits without assembling any tuple twice', () => {
    const space = spaces.get('idorsia_toy_space_a')!;
    const fp = fpOf(fixture.spaces.idorsia_toy_space_a[0].query);
    const scored = new Map<string, number | null>();
    const first = similaritySearch(rd, space, fp, { threshold: 0.45, scored });
    const size = scored.size;
    expect(size).toBe(first.counts.assembled + first.counts.invalid);
    const again = similaritySearch(rd, space, fp, { threshold: 0.45, scored });
    expect(scored.size).toBe(size);
    expect(again.hits).toEqual(first.hits);
    // A lower threshold reuses the scores it has and assembles only the new candidates.
    const lower = similaritySearch(rd, space, fp, { threshold: 0.35, scored });
    expect(scored.size).toBe(lower.counts.assembled + lower.counts.invalid);
    expect(scored.size).toBeGreaterThanOrEqual(size);
  });
});
