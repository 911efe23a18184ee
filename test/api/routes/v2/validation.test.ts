import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, selectionDoc, startHarness, type Harness } from './harness.ts';
import { batchDoc, submit } from './run-helpers.ts';

// Real PGlite, real Temporal (no worker: every request here is refused before a run starts).
let h: Harness;
beforeAll(async () => {
  h = await startHarness({ backend: 'pglite', worker: false, selectionPool: false });
}, 120_000);
afterAll(() => h?.close(), 60_000);

const paths = (body: Record<string, any> | undefined): string[] =>
  (body?.error?.details ?? []).map((d: { path: string }) => d.path);

describe('one validation for selections:validate, POST /selections and POST /runs', () => {
  const BAD = ['C1CC', 'CC\u{1F600}', 'not a molecule', 'CCO\tCCN', 'CCO\nCCN'];

  it('rejects each bad reference SMILES in all three with a 422 naming the reference; a batch item fails instead', async () => {
    for (const [n, smiles] of BAD.entries()) {
      const doc = selectionDoc(smiles);
      const validate = await call(h, 'POST', '/api/v2/selections:validate', { body: doc });
      const execute = await call(h, 'POST', '/api/v2/selections', { body: doc });
      const estimate = await call(h, 'POST', '/api/v2/selections:estimate', { body: doc });
      const run = await submit(h, { schema_version: 'run/1', kind: 'selection', selection: doc }, `bad-${n}`);
      const batch = batchDoc(2);
      batch.items[1].references = [{ id: 'q', structure: { format: 'smiles', value: smiles } }];
      const runBatch = await submit(h, batch, `bad-batch-${n}`);
      const batchEstimate = await call(h, 'POST', '/api/v2/runs:estimate', { body: batch });
      for (const [name, r, path] of [
        ['validate', validate, '$.references[0].structure.value'],
        ['execute', execute, '$.references[0].structure.value'],
        ['estimate', estimate, '$.references[0].structure.value'],
        ['run', run, '$.selection.references[0].structure.value'],
      ] as const) {
        expect(r.status, `${name} ${JSON.stringify(smiles)}`).toBe(422);
        expect(r.body!.error.code, name).toBe('invalid_smiles');
        expect(paths(r.body), name).toContain(path);
      }
      // In a selection_batch the bad reference is its item's failure, not the run's: admitted, and
      // the estimate says which item will fail, where and why.
      expect(runBatch.status, `run batch ${JSON.stringify(smiles)}`).toBe(202);
      expect(runBatch.body!.progress.total).toBe(2);
      expect(batchEstimate.body).toMatchObject({ admissible: true, work: { items: 2, failing_items: 1 } });
      const [failing] = batchEstimate.body!.item_errors;
      expect(failing).toMatchObject({ id: 'item-0001', error: { code: 'invalid_smiles' } });
      expect(failing.error.message).toContain('$.items[1].references[0].structure.value');
    }
  });

  it('rejects a NUL byte in a reference in all three', async () => {
    const doc = selectionDoc('CC\u0000O');
    for (const r of [
      await call(h, 'POST', '/api/v2/selections:validate', { body: doc }),
      await call(h, 'POST', '/api/v2/selections', { body: doc }),
      await submit(h, { schema_version: 'run/1', kind: 'selection', selection: doc }, 'nul-run'),
    ]) {
      expect(r.status).toBe(422);
      expect(paths(r.body).join(' ')).toMatch(/references/);
    }
  });

  it('still accepts a good document in all three', async () => {
    const doc = selectionDoc('CC(=O)Oc1ccccc1C(=O)O', 3);
    expect((await call(h, 'POST', '/api/v2/selections:validate', { body: doc })).body!.valid).toBe(true);
    expect((await call(h, 'POST', '/api/v2/selections', { body: doc })).status).toBe(200);
    const est = await call(h, 'POST', '/api/v2/runs:estimate', {
      body: { schema_version: 'run/1', kind: 'selection', selection: doc },
    });
    expect(est.status).toBe(200);
  });

  it('refuses a run whose objective run items cannot score (cheese.shape), naming the objective', async () => {
    const selection = selectionDoc('CC(=O)Oc1ccccc1C(=O)O', 3, {
      objectives: [
        { type: 'similarity', direction: 'maximize', metric_id: 'cheese.shape', reference_id: 'q' },
      ],
    });
    const doc = { schema_version: 'run/1', kind: 'selection', selection };
    const est = await call(h, 'POST', '/api/v2/runs:estimate', { body: doc });
    expect(est.status).toBe(200);
    expect(est.body).toMatchObject({ admissible: false });
    expect(est.body!.reason).toContain('$.selection.objectives[0].metric_id: cheese.shape');
    const run = await submit(h, doc, 'shape-run');
    expect(run.status).toBe(422);
    expect(run.body!.error.code).toBe('capability_unavailable');
    expect(paths(run.body)).toEqual(['$.selection.objectives[0].metric_id']);
  });

  it('rejects a structure query that does not parse in validate as in execute', async () => {
    const doc = selectionDoc('CCO', 3, {
      constraints: {
        structures: { all: [{ id: 's', query: { format: 'smarts', value: '[C' }, relation: 'contains' }] },
      },
    });
    for (const r of [
      await call(h, 'POST', '/api/v2/selections:validate', { body: doc }),
      await call(h, 'POST', '/api/v2/selections', { body: doc }),
    ]) {
      expect(r.status).toBe(422);
      expect(paths(r.body)).toContain('$.constraints.structures.all[0].query.value');
    }
  });
});

describe('strict JSON bodies', () => {
  it('answers "10", true, [5] and "Infinity" where a number belongs with a 422 naming the field', async () => {
    for (const limit of ['10', true, [5], 'Infinity', 1e300]) {
      const r = await call(h, 'POST', '/api/v2/search', {
        body: { query_smiles: 'CCO', database_id: 'drugs', limit },
      });
      expect(r.status, JSON.stringify(limit)).toBe(422);
      expect(paths(r.body), JSON.stringify(limit)).toEqual(['$.limit']);
    }
    const ok = await call(h, 'POST', '/api/v2/search', {
      body: { query_smiles: 'CCO', database_id: 'drugs', limit: 3 },
    });
    expect(ok.status).toBe(200);
  });

  it('refuses a key the search endpoints do not know, naming it, and names the field as the SDK reads it', async () => {
    // A trial sent "scorer": "shape" to /search and got Morgan hits without a word.
    for (const [path, body] of [
      ['/api/v2/search', { query_smiles: 'CCO', database_id: 'drugs', scorer: 'shape' }],
      ['/api/v2/search_cheese', { query_smiles: 'CCO', database_id: 'drugs', scorer: 'esp', limt: 5 }],
      ['/api/v2/search_substructure', { query: { value: 'CO' }, database_id: 'drugs', bogus: 1 }],
    ] as const) {
      const r = await call(h, 'POST', path, { body });
      expect(r.status, path).toBe(422);
      expect(r.body!.error.message, path).toMatch(/scorer|limt|bogus/);
    }
    const r = await call(h, 'POST', '/api/v2/search', {
      body: { query_smiles: 'C1CC(', database_id: 'drugs' },
    });
    expect(r.body!.error).toMatchObject({ code: 'invalid_smiles', field: 'query_smiles', retryable: false });
  });

  it('refuses superstructure search on a catalog with a 422 naming search_mode, not substructure hits', async () => {
    // A trial's CCO "superstructures" on a catalog were ethylene glycol and acetic acid: the
    // substructure answer under another name.
    const body = { query: { format: 'smiles', value: 'CCO' }, database_id: 'drugs', limit: 5 };
    const r = await call(h, 'POST', '/api/v2/search_substructure', {
      body: { ...body, search_mode: 'superstructure' },
    });
    expect(r.status).toBe(422);
    expect(r.body!.error.field).toBe('search_mode');
    expect(r.body!.error.message).toMatch(/synthon spaces only.*drugs.*catalog/);
    const sub = await call(h, 'POST', '/api/v2/search_substructure', { body });
    expect(sub.status).toBe(200);
  });

  it('answers a query_smiles holding a tab or newline with a 422 naming it', async () => {
    for (const q of ['CCO\tCCN', 'CCO\nCCN']) {
      const r = await call(h, 'POST', '/api/v2/search', { body: { query_smiles: q, database_id: 'drugs' } });
      expect(r.status).toBe(422);
      expect(paths(r.body).join(' ')).toMatch(/query_smiles/);
    }
  });
});

describe('empty optional query parameters', () => {
  it('mean absent in v2 (the official client sends status_filter=)', async () => {
    const r = await call(h, 'GET', '/api/v2/runs?status_filter=&cursor=&limit=');
    expect(r.status, r.raw).toBe(200);
    expect(Array.isArray(r.body!.data)).toBe(true);
  });
});
