import { beforeAll, describe, expect, it } from 'vitest';
import {
  executeSelection,
  libraryFacts,
  normalizeSelection,
  type Library,
} from '../../../engine/selection/index.ts';
import { drugsLibrary, drugsPrice, pricedDrugsLibrary } from '../../../testkit/drugs-library.ts';

const ASPIRIN = 'CC(=O)Oc1ccccc1C(=O)O';
let lib: Library;
let priced: Library;
beforeAll(async () => {
  lib = await drugsLibrary();
  priced = await pricedDrugsLibrary();
}, 120_000);

const doc = (database_id: string, constraints: Record<string, unknown>, limit = 20) => ({
  database: { database_id },
  strategy: { type: 'ranked' },
  references: [{ id: 'q', structure: { format: 'smiles', value: ASPIRIN } }],
  objectives: [{ metric_id: 'rdkit.ecfp4_tanimoto', reference_id: 'q' }],
  constraints,
  include: ['properties', 'constraint_evidence'],
  portfolio: { limit },
});
const run = (l: Library, d: unknown) => executeSelection(l, normalizeSelection(d, libraryFacts(l)));

describe('properties the catalogs do not store (fraction_csp3, num_aromatic_rings)', () => {
  const window = {
    properties: [
      {
        property_id: 'rdkit.fraction_csp3',
        operator: 'range',
        value: { lower: 0.1, upper: 0.8 },
        units: '1',
      },
      {
        property_id: 'rdkit.aromatic_rings',
        operator: 'range',
        value: { lower: 1, upper: 5 },
        units: 'count',
      },
    ],
  };

  it('keeps exactly the unconstrained hits that satisfy them, in the same order', async () => {
    const all = await run(lib, doc('drugs', {}, 200));
    const kept = await run(lib, doc('drugs', window, 200));
    const ok = (p: Record<string, number | null>) =>
      p.fraction_csp3! >= 0.1 &&
      p.fraction_csp3! <= 0.8 &&
      p.num_aromatic_rings! >= 1 &&
      p.num_aromatic_rings! <= 5;
    // The unconstrained list computes nothing: filter it by the values the constrained run reports.
    const byId = new Map(kept.results.map((r) => [r.product_id, r.properties!]));
    expect(kept.results.length).toBeGreaterThan(0);
    expect(kept.results.every((r) => ok(r.properties!))).toBe(true);
    expect(kept.counts.postfilter_rejected).toBeGreaterThan(0);
    const prefix = all.results.map((r) => r.product_id).filter((id) => byId.has(id));
    expect(kept.results.map((r) => r.product_id).slice(0, prefix.length)).toEqual(prefix);
    expect(kept.execution_plan.constraint_execution).toEqual([
      expect.objectContaining({ path: '$.constraints.properties[0]', status: 'exact_postfilter' }),
      expect.objectContaining({ path: '$.constraints.properties[1]', status: 'exact_postfilter' }),
    ]);
  });

  it("reports RDKit's values (aspirin: CalcFractionCSP3 1/9, one aromatic ring)", async () => {
    const out = await run(lib, doc('drugs', window, 5));
    const aspirin = out.results.find((r) => r.smiles === ASPIRIN);
    expect(aspirin?.properties).toMatchObject({ num_aromatic_rings: 1 });
    expect(aspirin!.properties!.fraction_csp3).toBeCloseTo(1 / 9, 12);
    expect(aspirin!.constraint_evidence).toContainEqual(
      expect.objectContaining({ property_id: 'fraction_csp3', value: aspirin!.properties!.fraction_csp3 }),
    );
  });

  it('drops a hit that fails one (aspirin has fewer than 2 aromatic rings)', async () => {
    const out = await run(
      lib,
      doc('drugs', { properties: [{ property_id: 'rdkit.aromatic_rings', operator: 'gte', value: 2 }] }),
    );
    expect(out.results.map((r) => r.smiles)).not.toContain(ASPIRIN);
    expect(out.results.every((r) => r.properties!.num_aromatic_rings! >= 2)).toBe(true);
  });
});

describe('constraints.price', () => {
  it('keeps priced products at most max, unpriced ones excluded by default', async () => {
    const out = await run(priced, doc('drugs-priced', { price: { max: 100 } }));
    expect(out.results.length).toBe(20);
    expect(out.results.every((r) => r.price !== null && r.price <= 100)).toBe(true);
    expect(out.results[0].constraint_evidence).toContainEqual({
      path: '$.constraints.price',
      price: out.results[0].price,
      passed: true,
    });
    const passing = Array.from({ length: priced.size }, (_, i) => drugsPrice(i)).filter(
      (p) => p !== null && p <= 100,
    ).length;
    expect(out.counts.pushdown_passed).toBe(passing);
  });

  it('keeps unpriced products when missing is keep', async () => {
    const out = await run(priced, doc('drugs-priced', { price: { max: 100, missing: 'keep' } }, 100));
    expect(out.results.some((r) => r.price === null)).toBe(true);
    expect(out.results.every((r) => r.price === null || r.price <= 100)).toBe(true);
  });

  it('a bound below every price returns nothing and says price_unattainable with the cheapest', async () => {
    const cheapest = Math.min(
      ...Array.from({ length: priced.size }, (_, i) => drugsPrice(i)).filter((p): p is number => p !== null),
    );
    const out = await run(priced, doc('drugs-priced', { price: { max: cheapest - 1 } }));
    expect(out.results).toEqual([]);
    expect(out.warnings).toContainEqual({
      code: 'price_unattainable',
      message: expect.stringContaining(`the cheapest costs ${cheapest} USD`),
    });
    const ok = await run(priced, doc('drugs-priced', { price: { max: cheapest } }));
    expect(ok.results.length).toBeGreaterThan(0);
    expect(ok.warnings.map((w) => w.code)).not.toContain('price_unattainable');
  });

  it('answers capability_unavailable on a library without prices, naming constraints.price', async () => {
    await expect(run(lib, doc('drugs', { price: { max: 100 } }))).rejects.toMatchObject({
      code: 'capability_unavailable',
      message: expect.stringContaining('$.constraints.price'),
    });
  });
});
