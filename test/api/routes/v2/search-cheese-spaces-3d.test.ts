// POST /api/v2/search_cheese with scorer shape or esp on a synthon space (the Idorsia toy space),
// through the real service stack (shared Temporal dev server, PGlite, the API through inject()) and
// the real Python chem3d worker. The expected ranking is computed here: the same Morgan shortlist
// (scorer morgan of the same space), each product embedded by the worker (the route's recipe:
// the query with 10 conformers, products with SPACE_3D_PRODUCT_CONFS) and scored by the serial
// engine/shape scoreShortlist against the query, ranked by the chosen score. A second API on the
// same Temporal queues with a tiny SPACE_3D_BUDGET_MS answers with what it embedded in time.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { scoreShortlist } from '../../../../engine/shape/index.ts';
import {
  MAX_SPACE_3D_SHORTLIST,
  SPACE_3D_PRODUCT_CONFS,
} from '../../../../api/services/v2-space-cheese-3d.ts';
import type { Chem3dWorker } from '../../../../platform/chem3d/process.ts';
import { embedSmiles, startTestChem3d } from '../../../support/chem3d.ts';
import { buildTestSpaces } from '../../../workflows/support/spaces.ts';
import { call, stackEnv, startTestStack, tempDir, type TestStack } from '../../../workflows/support/stack.ts';

const SPACE = 'idorsia_toy_space';
// Queries of RDKit's brute force over the toy space; the first one's shortlist embeds in 3D (some
// toy-space products keep an open connector, [*:n], which the chem3d worker cannot embed).
const REF = new URL('../../../fixtures/synthons/similarity-reference.json', import.meta.url);
let s: TestStack;
let py: Chem3dWorker;
let prefix: string;
let query: string;
let dir: string;

type Hit = {
  rank: number;
  smiles: string;
  score: number;
  proposal_score: number;
  product_id: string;
  reaction_id: string;
  metric: string;
  scores: { shape: number; esp: number; morgan: number };
  synthons: Array<{ slot: number; synthon_id: string; smiles: string }>;
};

beforeAll(async () => {
  dir = await tempDir('cheese-spaces-3d');
  await buildTestSpaces(join(dir, 'data'), [SPACE]);
  prefix = `chs3d-${randomBytes(4).toString('hex')}`;
  py = await startTestChem3d(inject('temporalAddress'), prefix);
  s = await startTestStack(
    stackEnv(join(dir, 'data'), join(dir, 'catalogs'), inject('temporalAddress'), prefix),
  );
  const ref = JSON.parse(await readFile(REF, 'utf8')) as {
    spaces: Record<string, Array<{ query: string }>>;
  };
  query = ref.spaces.idorsia_toy_space_a[0].query;
}, 300_000);

afterAll(async () => {
  await py?.stop();
  await s?.stack.stop();
});

const cheese = (body: Record<string, unknown>) => call(s, 'POST', '/api/v2/search_cheese', s.keyA, body);

describe('POST /api/v2/search_cheese with a 3D scorer on a synthon space', () => {
  it('lists shape and esp among the space scorers', async () => {
    const r = await call(s, 'GET', '/api/v2/catalog', s.keyA);
    const lib = r.body.libraries.find((l: { database_id: string }) => l.database_id === SPACE);
    expect(lib.capabilities.search_cheese).toEqual(['morgan', 'shape', 'esp']);
  });

  it('ranks the Morgan shortlist by the exact 3D score: equal to embedding and scoring that shortlist here', async () => {
    const limit = 5;
    const multiplier = 3;
    // The shortlist the 3D rerank embeds: the space's best limit × multiplier products by Morgan.
    const morgan = await cheese({
      query_smiles: query,
      database_id: SPACE,
      scorer: 'morgan',
      limit: limit * multiplier,
      shortlist_multiplier: 1,
    });
    expect(morgan.status, morgan.raw).toBe(200);
    const shortlist = (morgan.body.results as Hit[]).map((h) => h.smiles);
    const morganOf = new Map((morgan.body.results as Hit[]).map((h) => [h.smiles, h.score]));
    expect(shortlist).toHaveLength(limit * multiplier);
    const qMol = await embedSmiles(inject('temporalAddress'), prefix, query);
    const ref3d = new Map<string, { shape: number; esp: number }>();
    for (const smi of shortlist) {
      const m = await embedSmiles(inject('temporalAddress'), prefix, smi, SPACE_3D_PRODUCT_CONFS);
      if (m) ref3d.set(smi, scoreShortlist(qMol!, [m], { metric: 'shape', k: 1 })[0]);
    }
    // Enough embeddable products that the ranking is a real one.
    expect(ref3d.size).toBeGreaterThanOrEqual(2 * limit);
    for (const [scorer, metricId] of [
      ['shape', 'cheese.shape'],
      ['esp', 'cheese.electrostatic'],
    ] as const) {
      const r = await cheese({
        query_smiles: query,
        database_id: SPACE,
        scorer,
        limit,
        shortlist_multiplier: multiplier,
        include_synthons: true,
      });
      expect(r.status, r.raw).toBe(200);
      const want = [...ref3d]
        .map(([smi, v]) => ({ smi, v, i: shortlist.indexOf(smi) }))
        .sort((a, b) => b.v[scorer] - a.v[scorer] || a.i - b.i)
        .slice(0, limit);
      const hits: Hit[] = r.body.results;
      expect(
        hits.map((h) => h.smiles),
        scorer,
      ).toEqual(want.map((w) => w.smi));
      hits.forEach((h, i) => {
        expect(h.rank).toBe(i + 1);
        expect(h.metric).toBe(metricId);
        expect(h.score, scorer).toBeCloseTo(want[i].v[scorer], 9);
        expect(h.scores.shape).toBeCloseTo(want[i].v.shape, 9);
        expect(h.scores.esp).toBeCloseTo(want[i].v.esp, 9);
        expect(h.proposal_score).toBeCloseTo(morganOf.get(h.smiles)!, 12);
        expect(h.scores.morgan).toBe(h.proposal_score);
        // Decodable ids: reaction id, then the synthon ids slot by slot.
        expect(h.product_id.split(';')).toEqual([h.reaction_id, ...h.synthons.map((x) => x.synthon_id)]);
      });
      expect(r.body).toMatchObject({
        database_id: SPACE,
        scorer,
        metric: metricId,
        shortlist_multiplier: multiplier,
        effective_shortlist: limit * multiplier,
        engine_version: expect.any(String),
        model_version: expect.stringMatching(/ETKDGv3.*products 3 conformers/),
        timed_out: false,
        counts: {
          returned: limit,
          scored: ref3d.size,
          embedding_timed_out: 0,
          embedding_failed: limit * multiplier - ref3d.size,
          duplicate_products: expect.any(Number),
          duplicate_tuples: expect.any(Number),
          invalid: expect.any(Number),
          not_embedded: limit * multiplier - ref3d.size,
        },
      });
      expect(r.body.warnings.map((w: { code: string }) => w.code)).not.toContain('timed_out');
      expect(r.body.counts.proposed).toBeGreaterThanOrEqual(limit * multiplier);
      expect(r.body.counts.assembled).toBeGreaterThanOrEqual(limit * multiplier);
      for (const k of ['query', 'proposal', 'assembly_and_scoring', 'total'])
        expect(r.body.timing_ms[k], k).toBeGreaterThanOrEqual(0);
      expect(r.body.timing_ms.total).toBeGreaterThanOrEqual(r.body.timing_ms.query);
    }
  }, 600_000);

  it('bounds the shortlist with a 422 naming the field and the limit; an unembeddable query is a 422', async () => {
    const base = { query_smiles: query, database_id: SPACE, scorer: 'shape' };
    const over = await cheese({ ...base, limit: 20, shortlist_multiplier: 10 });
    expect(over.status, over.raw).toBe(422);
    expect(over.body.error.details[0].path).toMatch(/shortlist_multiplier$/);
    expect(over.body.error.message).toContain(`at most ${MAX_SPACE_3D_SHORTLIST}`);
    // No multiplier sent: the default (10) times limit is over the bound, so limit is named.
    const defaulted = await cheese({ ...base, scorer: 'esp', limit: 11 });
    expect(defaulted.status, defaulted.raw).toBe(422);
    expect(defaulted.body.error.details[0].path).toMatch(/limit$/);
    const big = await cheese({ ...base, query_smiles: 'C'.repeat(130), limit: 2 });
    expect(big.status, big.raw).toBe(422);
    expect(big.body.error.message).toMatch(/too large for 3D/);
    expect(big.body.error.details[0].path).toMatch(/query_smiles$/);
  }, 120_000);
});

describe('POST /api/v2/search_cheese with a 3D scorer on a space: the time budget', () => {
  // 1 s: on an idle machine 6 s embedded all 100 products (no time-out to test); 100 products
  // at 3 conformers take several seconds on any machine.
  const BUDGET_MS = 1_000;
  let tight: TestStack;

  beforeAll(async () => {
    // Its own database and spaces; no workers of its own: the first stack's Node worker runs the
    // embedding workflow and the same chem3d worker embeds.
    const data = join(dir, 'data-tight');
    await buildTestSpaces(data, [SPACE]);
    tight = await startTestStack(
      stackEnv(data, join(dir, 'catalogs-tight'), inject('temporalAddress'), prefix, {
        SPACE_3D_BUDGET_MS: String(BUDGET_MS),
      }),
      { worker: false },
    );
  }, 300_000);

  afterAll(async () => {
    await tight?.stack.stop();
  });

  it('answers 200 in about the budget with a timed_out warning, scoring only what was embedded in time', async () => {
    const t0 = Date.now();
    // The defaults: limit 10 × 10 = 100 products, more than a few seconds of embedding on 2 cores.
    const r = await call(tight, 'POST', '/api/v2/search_cheese', tight.keyA, {
      query_smiles: query,
      database_id: SPACE,
      scorer: 'shape',
    });
    const elapsed = Date.now() - t0;
    expect(r.status, r.raw).toBe(200);
    const c = r.body.counts;
    console.log(
      `budget ${BUDGET_MS} ms: ${c.scored} of ${r.body.effective_shortlist} scored, answered in ${elapsed} ms, timing_ms ${JSON.stringify(r.body.timing_ms)}`,
    );
    expect(r.body.effective_shortlist).toBe(100);
    expect(r.body.timed_out).toBe(true);
    const warning = r.body.warnings.find((w: { code: string }) => w.code === 'timed_out');
    expect(warning?.message).toMatch(/not embedded in 3D within the request's 1 s budget/);
    expect(c.embedding_timed_out).toBeGreaterThan(0);
    expect(c.scored).toBeLessThan(100);
    expect(c.scored + c.embedding_failed + c.embedding_timed_out).toBe(100);
    expect(c.not_embedded).toBe(c.embedding_failed + c.embedding_timed_out);
    expect(r.body.results).toHaveLength(Math.min(10, c.scored));
    const scores = (r.body.results as Hit[]).map((h) => h.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    // The budget bounds the request (plus scoring and the answer), far from the old minutes.
    expect(elapsed).toBeLessThan(BUDGET_MS + 10_000);
  }, 120_000);
});
