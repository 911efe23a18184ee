// Slices of synthon jobs (engine/synthons/job-search.ts): the best k merged over per-reaction
// slices equal the best k over the whole space; the prefiltered top k equals filtering a wider
// unfiltered top; results round-trip through the job result file with their synthon columns.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getRDKit, type RDKitModule } from '../../../engine/chem/rdkit.ts';
import type { OpenSpace } from '../../../engine/synthons/space.ts';
import { compareHits, synthonJobSlice, type SynthonJobSlice } from '../../../engine/synthons/job-search.ts';
import { TWO_ROUTES, twoRoutesReference } from './support/two-routes.ts';
import { allocJobResult, decodeJobResult, encodeJobResult } from '../../../engine/export/index.ts';
import { builtSpace } from './support/spaces.ts';

const SOURCE = new URL('../../../catalogs/spaces/sources/idorsia_toy_space_a.txt', import.meta.url).pathname;
let root: string;
let rd: RDKitModule;
let space: OpenSpace;
let twoRoutes: OpenSpace;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'job-slices-'));
  rd = await getRDKit();
  space = await builtSpace(root, SOURCE, 'idorsia_toy_space', 'idorsia');
  twoRoutes = await builtSpace(root, TWO_ROUTES, 'two_routes', 'two');
}, 300_000);
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const base = (over: Partial<SynthonJobSlice>): SynthonJobSlice => ({
  mode: 'similarity',
  // A product of the space: its neighbours share synthons, so the top k is found at high thresholds.
  query: 'O=C(NCc1ccsc1NC(=O)c1nccnc1F)NC1COC1',
  reactions: space.manifest.reactions.map((r) => r.id),
  k: 20,
  matchMode: 'fuzzy',
  ...over,
});

describe('synthon job slices', () => {
  it('merged per-reaction top k equals the whole-space top k', { timeout: 300_000 }, () => {
    const whole = synthonJobSlice(rd, space, base({}));
    const merged = space.manifest.reactions
      .flatMap((r) => synthonJobSlice(rd, space, base({ reactions: [r.id] })).hits)
      .sort(compareHits)
      .slice(0, 20);
    expect(whole.hits).toHaveLength(20);
    expect(merged.map((h) => [h.productId, h.similarity])).toEqual(
      whole.hits.map((h) => [h.productId, h.similarity]),
    );
  });

  it(
    'the prefiltered top k is the unfiltered top filtered (include and exclude partition it)',
    { timeout: 300_000 },
    () => {
      const prefilter = { smarts: 'c1ccsc1', mode: 'include' as const };
      const wide = synthonJobSlice(rd, space, base({ k: 500 })).hits;
      const thio = rd.get_qmol('c1ccsc1')!;
      const matches = (smiles: string) => {
        const m = rd.get_mol(smiles)!;
        const hit = !!JSON.parse(m.get_substruct_match(thio)).atoms?.length;
        m.delete();
        return hit;
      };
      // The wide top holds 5 products of each side, so it decides both filtered tops.
      expect(wide.filter((h) => matches(h.smiles)).length).toBeGreaterThanOrEqual(5);
      expect(wide.filter((h) => !matches(h.smiles)).length).toBeGreaterThanOrEqual(5);
      const inc = synthonJobSlice(rd, space, base({ k: 5, prefilter })).hits;
      const exc = synthonJobSlice(
        rd,
        space,
        base({ k: 5, prefilter: { ...prefilter, mode: 'exclude' } }),
      ).hits;
      expect(inc.map((h) => h.productId)).toEqual(
        wide
          .filter((h) => matches(h.smiles))
          .slice(0, 5)
          .map((h) => h.productId),
      );
      expect(exc.map((h) => h.productId)).toEqual(
        wide
          .filter((h) => !matches(h.smiles))
          .slice(0, 5)
          .map((h) => h.productId),
      );
      thio.delete();
    },
  );

  it('with a floor, holds exactly the unfloored top products at or above it', { timeout: 300_000 }, () => {
    const r = [space.manifest.reactions[0].id];
    const all = synthonJobSlice(rd, space, base({ reactions: r, k: 200 }));
    const floor = all.hits[29].similarity;
    const floored = synthonJobSlice(rd, space, base({ reactions: r, k: 200, floor }));
    expect(floored.timedOut).toBe(false);
    const want = all.hits.filter((h) => h.similarity >= floor);
    expect(want.length).toBeGreaterThanOrEqual(30);
    expect(want.length).toBeLessThan(200);
    expect(floored.hits.map((h) => [h.productId, h.similarity])).toEqual(
      want.map((h) => [h.productId, h.similarity]),
    );
  });

  it('lists a product two reactions make once, at its best route, and still k molecules', async () => {
    const ref = await twoRoutesReference(rd);
    const best = [...ref.best].sort((a, b) => b[1] - a[1]);
    expect(best.length).toBeLessThan(ref.tuples); // the fixture really has a repeat
    const reactions = twoRoutes.manifest.reactions.map((r) => r.id);
    for (const k of [2, best.length]) {
      const res = synthonJobSlice(rd, twoRoutes, base({ query: ref.query, reactions, k }));
      expect(res.hits.map((h) => h.smiles)).toEqual([...new Set(res.hits.map((h) => h.smiles))]);
      expect(res.hits.map((h) => [h.smiles, h.similarity])).toEqual(
        best.slice(0, k).map(([smi, sim]) => [smi, expect.closeTo(sim, 6)]),
      );
    }
  });

  it('names the field of an unparsable query or prefilter', () => {
    expect(() => synthonJobSlice(rd, space, base({ query: 'C1CC' }))).toThrow(/^search_input:/);
    expect(() => synthonJobSlice(rd, space, base({ prefilter: { smarts: '[#', mode: 'include' } }))).toThrow(
      /^smarts_prefilter_pattern_smarts:/,
    );
  });

  it('round-trips through the job result file with reaction_id and synthons', () => {
    const hits = synthonJobSlice(rd, space, base({ k: 5 })).hits;
    const r = allocJobResult(hits.length);
    r.synthon = {
      reactionId: hits.map((h) => h.reactionId),
      synthons: hits.map((h) => JSON.stringify(h.synthons)),
    };
    hits.forEach((h, i) => {
      r.smiles[i] = h.smiles;
      r.id[i] = r.dbId[i] = h.productId;
      r.database[i] = 'idorsia_toy_space';
      r.similarity[i] = h.similarity;
    });
    const back = decodeJobResult(encodeJobResult(r));
    expect(back.synthon).toEqual(r.synthon);
    expect(back.id).toEqual(r.id);
    expect(decodeJobResult(encodeJobResult(allocJobResult(0))).synthon).toBeUndefined();
  });
});
