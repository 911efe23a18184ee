import { beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import {
  executeSelection,
  libraryFacts,
  normalizeSelection,
  sampleIndices,
  createPrng,
  type Library,
} from '../../../engine/selection/index.ts';
import { drugsLibrary } from '../../../testkit/drugs-library.ts';

// Reference values from Python RDKit (scripts/reference/v2_selection_reference.py).
const REF = JSON.parse(
  readFileSync(new URL('../../fixtures/v2/selection-reference.json', import.meta.url), 'utf8'),
) as {
  molecules: number;
  knn: Record<string, { id: string; score: number }[]>;
  lipinski_knn: Record<string, { id: string; score: number }[]>;
};
const QUERIES = { aspirin: 'CC(=O)Oc1ccccc1C(=O)O', caffeine: 'Cn1c(=O)c2c(ncn2C)n(C)c1=O' } as const;

let lib: Library;
beforeAll(async () => {
  lib = await drugsLibrary();
}, 120_000);

const ranked = (query: string, extra: Record<string, unknown> = {}) => ({
  database: { database_id: 'drugs' },
  strategy: { type: 'ranked' },
  references: [{ id: 'q', structure: { format: 'smiles', value: query } }],
  objectives: [
    { type: 'similarity', direction: 'maximize', metric_id: 'rdkit.ecfp4_tanimoto', reference_id: 'q' },
  ],
  portfolio: { limit: 10 },
  ...extra,
});

describe('executeSelection', () => {
  it('loads every fixture molecule RDKit (Python) parses', () => {
    expect(lib.size).toBe(REF.molecules);
  });

  for (const [name, smiles] of Object.entries(QUERIES)) {
    it(`ranks ${name} neighbours as RDKit's BulkTanimotoSimilarity does`, async () => {
      const out = await executeSelection(lib, normalizeSelection(ranked(smiles), libraryFacts(lib)));
      expect(out.results.map((r) => r.product_id)).toEqual(REF.knn[name].map((r) => r.id));
      out.results.forEach((r, i) => expect(r.score).toBeCloseTo(REF.knn[name][i].score, 6));
    });

    it(`applies the lipinski-ro5 preset exactly (pushdown) for ${name}`, async () => {
      const sel = normalizeSelection(
        ranked(smiles, { constraints: { presets: [{ preset_id: 'lipinski-ro5' }] } }),
        libraryFacts(lib),
      );
      const out = await executeSelection(lib, sel);
      expect(out.results.map((r) => r.product_id)).toEqual(REF.lipinski_knn[name].map((r) => r.id));
      expect(out.counts.pushdown_passed).toBeLessThan(lib.size);
    });
  }

  it('applies structure conditions, scaffold relationships and max_per_scaffold', async () => {
    const sel = normalizeSelection(
      ranked(QUERIES.aspirin, {
        constraints: {
          structures: {
            all: [{ id: 'acid', query: { format: 'smarts', value: 'C(=O)[OX2H1]' } }],
            none: [{ id: 'n', query: { format: 'smarts', value: '[#7]' } }],
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
        portfolio: { limit: 5, max_per_scaffold: 1 },
        execution: { shortlist_multiplier: 100 },
        include: ['constraint_evidence', 'properties'],
      }),
      libraryFacts(lib),
    );
    const out = await executeSelection(lib, sel);
    expect(out.results.length).toBe(5);
    const scaffolds = out.results.map((r) => r.scaffold);
    expect(new Set(scaffolds).size).toBe(5);
    expect(scaffolds).not.toContain('c1ccccc1'); // aspirin's own scaffold is excluded
    for (const r of out.results) {
      expect(r.smiles).not.toMatch(/N|n/);
      expect(r.constraint_evidence?.[0]).toMatchObject({ id: 'acid', passed: true });
      expect(r.properties?.molecular_weight).toBeGreaterThan(0);
    }
    const scores = out.results.map((r) => r.score!);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
  });

  it('answers capability_unavailable for shape objectives', async () => {
    const sel = normalizeSelection(
      ranked(QUERIES.aspirin, { objectives: [{ metric_id: 'cheese.shape', reference_id: 'q' }] }),
      libraryFacts(lib),
    );
    await expect(executeSelection(lib, sel)).rejects.toMatchObject({ code: 'capability_unavailable' });
  });

  it('reports an unparsable structure query with its path', async () => {
    const sel = normalizeSelection(
      ranked(QUERIES.aspirin, {
        constraints: { structures: { all: [{ id: 'x', query: { format: 'smarts', value: 'c1ccc[' } }] } },
      }),
      libraryFacts(lib),
    );
    await expect(executeSelection(lib, sel)).rejects.toMatchObject({
      code: 'invalid_smiles',
      message: expect.stringContaining('$.constraints.structures.all[0].query.value'),
    });
  });

  it('samples reproducibly with a seed', async () => {
    const doc = {
      database: { database_id: 'drugs' },
      strategy: { type: 'sample' },
      execution: { seed: 42 },
      portfolio: { limit: 15 },
    };
    const a = await executeSelection(lib, normalizeSelection(doc, libraryFacts(lib)));
    const b = await executeSelection(lib, normalizeSelection(doc, libraryFacts(lib)));
    expect(a.results.map((r) => r.product_id)).toEqual(b.results.map((r) => r.product_id));
    const c = await executeSelection(
      lib,
      normalizeSelection({ ...doc, execution: { seed: 43 } }, libraryFacts(lib)),
    );
    expect(c.results.map((r) => r.product_id)).not.toEqual(a.results.map((r) => r.product_id));
  });
});

describe('seeded PRNG', () => {
  it('is a fixed sequence for a seed (pinned)', () => {
    const next = createPrng(1);
    const first = [next(), next(), next()];
    expect(first).toEqual(PINNED_SEQUENCE);
  });

  it('draws distinct indices, the same for the same seed', () => {
    const a = sampleIndices(1000, 100, 7);
    expect(new Set(a).size).toBe(100);
    expect(Array.from(sampleIndices(1000, 100, 7))).toEqual(Array.from(a));
    expect(Array.from(sampleIndices(1000, 100, 8))).not.toEqual(Array.from(a));
    expect(Math.max(...a)).toBeLessThan(1000);
  });
});

const PINNED_SEQUENCE = [2442144158, 3238099751, 3819917871];
