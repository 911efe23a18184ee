// v2 runs whose items select over a synthon space: real Temporal dev server, workers in this
// process, the space pool thread; each item's hits equal the synchronous selection's (which
// search-spaces.test.ts checks against brute force over RDKit's enumeration).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSpace } from '../../../../engine/synthons/build-space.ts';
import { call, startHarness, type Harness } from './harness.ts';
import { submit, waitTerminal } from './run-helpers.ts';

const SOURCES = new URL('../../../../catalogs/spaces/sources/', import.meta.url).pathname;
let h: Harness;
let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'v2-space-runs-'));
  await buildSpace({ input: join(SOURCES, 'urea_space.txt'), out: join(root, 'urea'), id: 'urea' });
  h = await startHarness({ worker: true, spaceDirs: [join(root, 'urea')] });
}, 180_000);
afterAll(async () => {
  await h?.close();
  await rm(root, { recursive: true, force: true });
}, 60_000);

const template = {
  schema_version: 'molecule-selection/1',
  database: { database_id: 'urea' },
  strategy: { type: 'ranked' },
  objectives: [
    { type: 'similarity', direction: 'maximize', metric_id: 'rdkit.ecfp4_tanimoto', reference_id: 'q' },
  ],
  portfolio: { limit: 3 },
  include: ['synthons'],
};
const QUERIES = ['O=C(NCc1ccccc1)NC1CCCCC1', 'C[C@@H]1CC(NC(=O)NC2COC2)CN(C(=O)c2nccnc2F)C1'];

describe('runs over a synthon space', () => {
  it('every item succeeds with the hits of the synchronous selection, synthons included', async () => {
    const doc = {
      schema_version: 'run/1',
      kind: 'selection_batch',
      selection_template: template,
      items: QUERIES.map((q, i) => ({
        id: `item-${i}`,
        references: [{ id: 'q', structure: { format: 'smiles', value: q } }],
      })),
      failure_policy: 'continue',
    };
    const r = await submit(h, doc, 'space-run');
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    const run = await waitTerminal(h, r.body!.id);
    expect(run.status).toBe('completed');
    const results = await call(h, 'GET', `/api/v2/runs/${r.body!.id}/results`);
    expect(results.status).toBe(200);
    const items = results.body!.data as Array<{
      id: string;
      status: string;
      results: Array<Record<string, unknown>>;
      result: { results: Array<Record<string, unknown>>; database_id: string };
    }>;
    expect(items).toHaveLength(2);
    for (const [i, q] of QUERIES.entries()) {
      const sync = await call(h, 'POST', '/api/v2/selections', {
        body: { ...template, references: [{ id: 'q', structure: { format: 'smiles', value: q } }] },
      });
      expect(sync.status).toBe(200);
      const item = items.find((x) => x.id === `item-${i}`)!;
      expect(item.status).toBe('succeeded');
      expect(item.results.length).toBeGreaterThan(0);
      const pick = (hs: Array<Record<string, unknown>>) =>
        hs.map((x) => [x.product_id, x.score, x.reaction_id, x.synthons]);
      expect(pick(item.results)).toEqual(pick(sync.body!.results));
      // The item's result holds the same hits (the SDK reads them there), synthons included.
      expect(item.result.results).toEqual(item.results);
      expect(item.result.database_id).toBe('urea');
      const top = item.results[0] as {
        product_id: string;
        reaction_id: string;
        synthons: Array<{ synthon_id: string }>;
      };
      expect(top.product_id.split(';')).toEqual([top.reaction_id, ...top.synthons.map((x) => x.synthon_id)]);
    }
  });
});
