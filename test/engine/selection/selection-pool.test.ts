import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rmSync } from 'node:fs';
import { DomainError } from '../../../platform/errors.ts';
import { HTTP_STATUS } from '../../../api/plugins/errors.ts';
import {
  createSelectionPool,
  executeSelection,
  executeSelectionIn,
  libraryFacts,
  normalizeSelection,
  openCatalogLibrary,
  openScanLibrary,
  type Library,
  type SelectionOutcome,
  type SelectionPool,
} from '../../../engine/selection/index.ts';
import { DESCRIPTOR_NAMES } from '../../../engine/chem/index.ts';
import { buildReferenceCatalog } from '../../support/fixture-catalog.ts';
import { drugsLibrary } from '../../../testkit/drugs-library.ts';

const ASPIRIN = 'CC(=O)Oc1ccccc1C(=O)O';
const IBUPROFEN = 'CC(C)Cc1ccc(cc1)C(C)C(=O)O';

const ranked = (databaseId: string, query: string, extra: Record<string, unknown> = {}) => ({
  database: { database_id: databaseId },
  strategy: { type: 'ranked' },
  references: [{ id: 'q', structure: { format: 'smiles', value: query } }],
  objectives: [
    { type: 'similarity', direction: 'maximize', metric_id: 'rdkit.ecfp4_tanimoto', reference_id: 'q' },
  ],
  portfolio: { limit: 10 },
  ...extra,
});
/** Property pushdown + structure post-filters + scaffold relationship + portfolio cap. */
const constrained = (databaseId: string, query: string) =>
  ranked(databaseId, query, {
    constraints: {
      properties: [
        { property_id: 'molecular_weight', operator: 'lte', value: 400 },
        { property_id: 'clogp', operator: 'range', value: { lower: -1, upper: 4 } },
      ],
      structures: {
        all: [{ id: 'ring', query: { format: 'smarts', value: 'a' } }],
        none: [{ id: 'halogen', query: { format: 'smarts', value: '[F,Cl,Br,I]' } }],
      },
      relationships: [
        {
          type: 'scaffold_relation',
          method_id: 'rdkit.bemis_murcko',
          operator: 'different',
          reference_id: 'q',
        },
      ],
    },
    portfolio: { limit: 12, max_per_scaffold: 2 },
    execution: { shortlist_multiplier: 20 },
    include: ['constraint_evidence', 'properties', 'objective_components'],
  });

/** The error a promise rejects with (fails the test if it resolves). */
async function failure(p: Promise<unknown>): Promise<DomainError> {
  try {
    await p;
  } catch (err) {
    return err as DomainError;
  }
  throw new Error('expected a rejection');
}

const withoutTiming = (o: SelectionOutcome) => ({ ...o, timing_ms: undefined });

let drugs: Library;
let pool: SelectionPool;
let cat: Awaited<ReturnType<typeof buildReferenceCatalog>>;
beforeAll(async () => {
  drugs = await drugsLibrary();
  pool = createSelectionPool({ threads: 2 });
  cat = await buildReferenceCatalog({ id: 'refsel', shardRows: 64 });
}, 180_000);
afterAll(async () => {
  await pool?.close();
  if (cat) rmSync(cat.dir, { recursive: true, force: true });
});

describe('selection pool', () => {
  for (const [name, smiles] of [
    ['aspirin', ASPIRIN],
    ['ibuprofen', IBUPROFEN],
  ] as const) {
    it(`gives the in-thread outcome for a property + structure constrained selection (${name}, in-memory library)`, async () => {
      const sel = normalizeSelection(constrained('drugs', smiles), libraryFacts(drugs));
      const want = await executeSelection(drugs, sel);
      const got = await pool.execute(drugs.source!, sel);
      expect(want.results.length).toBeGreaterThan(3);
      expect(want.counts.pushdown_passed).toBeLessThan(drugs.size);
      expect(want.counts.postfilter_rejected).toBeGreaterThan(0);
      expect(withoutTiming(got)).toEqual(withoutTiming(want));
    });
  }

  it('over a multi-shard catalog (WebAssembly masked k-NN in the thread) equals in-thread execution over the JS library', async () => {
    const lib = await openCatalogLibrary(cat.catalog);
    expect(cat.catalog.manifest.shards.length).toBeGreaterThan(2);
    let returned = 0;
    for (const smiles of [ASPIRIN, IBUPROFEN, 'c1ccc2[nH]ccc2c1']) {
      const sel = normalizeSelection(constrained('refsel', smiles), libraryFacts(lib));
      const want = await executeSelection(lib, sel);
      const got = await executeSelectionIn(pool, lib, sel);
      expect(want.counts.pushdown_passed).toBeLessThan(lib.size);
      expect(withoutTiming(got)).toEqual(withoutTiming(want));
      returned += want.counts.returned;
    }
    expect(returned).toBeGreaterThan(10);
  });

  it('sends invalid_smiles and capability_unavailable back with code, message and issues intact', async () => {
    const bad = normalizeSelection(
      ranked('drugs', ASPIRIN, {
        constraints: { structures: { all: [{ id: 'x', query: { format: 'smarts', value: 'c1ccc[' } }] } },
      }),
      libraryFacts(drugs),
    );
    const inThread = await failure(executeSelection(drugs, bad));
    const viaPool = await failure(pool.execute(drugs.source!, bad));
    expect(viaPool).toBeInstanceOf(DomainError);
    expect(inThread).toBeInstanceOf(DomainError);
    expect({
      code: viaPool.code,
      message: viaPool.message,
      issues: viaPool.issues,
      status: HTTP_STATUS[viaPool.code],
    }).toEqual({ code: 'invalid_smiles', message: inThread.message, issues: inThread.issues, status: 422 });

    const badRef = normalizeSelection(ranked('drugs', 'C1CC('), libraryFacts(drugs));
    const e2 = await failure(pool.execute(drugs.source!, badRef));
    expect(e2).toMatchObject({
      code: 'invalid_smiles',
      issues: [{ loc: ['body', 'references', 0, 'structure', 'value'], type: 'value_error.smiles' }],
    });

    const shape = normalizeSelection(
      ranked('drugs', ASPIRIN, { objectives: [{ metric_id: 'cheese.shape', reference_id: 'q' }] }),
      libraryFacts(drugs),
    );
    await expect(pool.execute(drugs.source!, shape)).rejects.toMatchObject({
      code: 'capability_unavailable',
      message: expect.stringContaining('$.objectives[0].metric_id'),
    });
  });

  it('runs concurrent selections on its threads and reports them in stats', async () => {
    const sels = [ASPIRIN, IBUPROFEN, 'Cn1c(=O)c2c(ncn2C)n(C)c1=O', 'c1ccncc1'].map((s) =>
      normalizeSelection(ranked('drugs', s), libraryFacts(drugs)),
    );
    const before = pool.stats().executed;
    const [got, want] = await Promise.all([
      Promise.all(sels.map((s) => pool.execute(drugs.source!, s))),
      Promise.all(sels.map((s) => executeSelection(drugs, s))),
    ]);
    expect(got.map((o) => o.results.map((r) => r.product_id))).toEqual(
      want.map((o) => o.results.map((r) => r.product_id)),
    );
    expect(pool.stats()).toMatchObject({ threads: 2, busy: 0, queued: 0, executed: before + 4 });
  });

  it('rejects with unavailable once closed', async () => {
    const p = createSelectionPool();
    await p.close();
    await expect(
      p.execute(drugs.source!, normalizeSelection(ranked('drugs', ASPIRIN), libraryFacts(drugs))),
    ).rejects.toMatchObject({ code: 'unavailable' });
  });
});

describe('openScanLibrary', () => {
  it('serves the same rows, columns and masked k-NN as openCatalogLibrary', async () => {
    const a = await openCatalogLibrary(cat.catalog);
    const b = await openScanLibrary(cat.catalog);
    expect(b.size).toBe(a.size);
    expect(b.info).toEqual(a.info);
    for (let row = 0; row < a.size; row++) {
      expect([b.productId(row), b.smiles(row), b.scaffold(row), b.price(row)]).toEqual([
        a.productId(row),
        a.smiles(row),
        a.scaffold(row),
        a.price(row),
      ]);
      expect(Buffer.from(b.fingerprint(row)).equals(Buffer.from(a.fingerprint(row)))).toBe(true);
    }
    for (const name of DESCRIPTOR_NAMES)
      expect(Array.from(b.column(name)!)).toEqual(Array.from(a.column(name)!));
    const mask = Uint8Array.from({ length: a.size }, (_, i) => (i % 3 === 0 || i % 7 === 0 ? 1 : 0));
    for (const row of [0, 50, 130, a.size - 1]) {
      for (const k of [1, 10, 64, a.size]) {
        for (const m of [undefined, mask]) {
          const [x, y] = await Promise.all([
            a.knn(a.fingerprint(row), k, m),
            b.knn(a.fingerprint(row), k, m),
          ]);
          expect(Array.from(y.rows)).toEqual(Array.from(x.rows));
          expect(Array.from(y.scores)).toEqual(Array.from(x.scores));
        }
      }
    }
  });
});
