import { describe, expect, it } from 'vitest';
import { documentHash, libraryFacts, normalizeSelection } from '../../../engine/selection/index.ts';
import { spaceFactsLibrary } from '../../../engine/synthons/space-selection.ts';
import { issuesOf, sdkWhere } from '../../support/selection-docs.ts';

// The facts of a real library (all descriptors plus the computed ones), as the API passes them.
const LIB = libraryFacts(
  spaceFactsLibrary({
    database_id: 'drugs',
    name: 'drugs',
    vendor: '',
    website: '',
    contact: '',
    release: '2024.1',
    product_count: 1,
  }),
);

const sample = (constraints: Record<string, unknown>) => ({
  database: { database_id: 'drugs' },
  strategy: { type: 'sample', distribution: 'route_product_tuple' },
  constraints,
});

describe('property ids the released SDK sends', () => {
  // Every id and unit of the SDK's PROPERTIES table (its where= parser and druglike/ro3 subsets).
  const SDK = [
    ['rdkit.mol_wt', 'Da', 'molecular_weight'],
    ['rdkit.crippen_logp', '1', 'clogp'],
    ['rdkit.hbd', 'count', 'h_bond_donor'],
    ['rdkit.hba', 'count', 'h_bond_acceptors'],
    ['rdkit.rotatable_bonds', 'count', 'rotatable_bonds'],
    ['rdkit.tpsa', 'A^2', 'topological_surface_area_mapping'],
    ['rdkit.fraction_csp3', '1', 'fraction_csp3'],
    ['rdkit.aromatic_rings', 'count', 'num_aromatic_rings'],
  ] as const;

  it('accepts each, with its units, and names it by the service id', () => {
    const n = normalizeSelection(
      sample({ properties: SDK.map(([id, units]) => sdkWhere(id, units, 'lte', 10)) }),
      LIB,
    );
    expect(n.constraints.properties.map((p) => p.property_id).sort()).toEqual(
      SDK.map(([, , ours]) => ours).sort(),
    );
  });

  it('hashes an SDK document as the same intent written with the service ids', () => {
    const sdk = sample({ properties: [sdkWhere('rdkit.mol_wt', 'Da', 'range', { lower: 1, upper: 400 })] });
    const ours = sample({
      properties: [sdkWhere('molecular_weight', 'Da', 'range', { lower: 1, upper: 400 })],
    });
    expect(documentHash(normalizeSelection(sdk, LIB))).toBe(documentHash(normalizeSelection(ours, LIB)));
  });

  it('refuses units it would have to convert, naming the field', () => {
    const issues = issuesOf(() =>
      normalizeSelection(sample({ properties: [sdkWhere('rdkit.mol_wt', 'kDa', 'lte', 0.4)] }), LIB),
    );
    expect(issues).toEqual([
      { path: 'body/constraints/properties/0/units', msg: expect.stringContaining('"Da"') },
    ]);
  });

  it('lists the SDK ids among the allowed values of an unknown id', () => {
    const issues = issuesOf(() =>
      normalizeSelection(sample({ properties: [sdkWhere('rdkit.qed', '1', 'gt', 0.5)] }), LIB),
    );
    expect(issues[0].path).toBe('body/constraints/properties/0/property_id');
    expect(issues[0].msg).toContain('rdkit.mol_wt');
    expect(issues[0].msg).toContain('fraction_csp3');
  });
});

describe('constraints.price (the SDK max_price)', () => {
  const sdkPrice = (max: number, missing = 'reject') => ({
    max,
    currency: 'USD',
    amount_mg: 1,
    ship_to: 'US',
    missing,
  });

  it('normalizes the SDK document, unpriced products rejected unless kept', () => {
    expect(normalizeSelection(sample({ price: sdkPrice(100) }), LIB).constraints.price).toEqual(
      sdkPrice(100),
    );
    expect(normalizeSelection(sample({ price: { max: 5 } }), LIB).constraints.price?.missing).toBe('reject');
    expect(normalizeSelection(sample({ price: sdkPrice(100, 'keep') }), LIB).constraints.price?.missing).toBe(
      'keep',
    );
  });

  it('leaves documents without a price bound (and their hashes) as they were', () => {
    expect('price' in normalizeSelection(sample({}), LIB).constraints).toBe(false);
  });

  it('refuses a basis it cannot convert to, naming each field and why', () => {
    const bad = { max: -1, currency: 'EUR', amount_mg: 5, ship_to: 'DE', missing: 'drop' };
    const issues = issuesOf(() => normalizeSelection(sample({ price: bad }), LIB));
    expect(issues.map((i) => i.path).sort()).toEqual(
      [
        'body/constraints/price/amount_mg',
        'body/constraints/price/currency',
        'body/constraints/price/max',
        'body/constraints/price/missing',
        'body/constraints/price/ship_to',
      ].sort(),
    );
    expect(issues.find((i) => i.path.endsWith('currency'))?.msg).toContain('USD');
  });
});

describe('what the SDK can send that the service cannot honour', () => {
  it('refuses predicted-property constraints and acquisition naming the member and why', () => {
    // Selection.where_predicted_property(...) and .acquire_predicted_property(...) of 0.4.0b5.
    const doc = {
      ...sample({
        predicted_properties: [
          {
            type: 'predicted_property',
            endpoint_id: 'openadmet-herg-pchembl',
            operator: 'lte',
            value: 5,
            units: 'pChEMBL',
            required_fidelity: 'pinned_assembled_product_teacher',
            missing: 'reject',
          },
        ],
      }),
      execution: {
        quality: 'balanced',
        acquisition: {
          type: 'predicted_property_rank_quantile',
          endpoint_id: 'openadmet-herg-pchembl',
          direction: 'minimize',
          keep_fraction: 0.25,
        },
      },
    };
    const issues = issuesOf(() => normalizeSelection(doc, LIB));
    expect(issues).toEqual([
      { path: 'body/constraints/predicted_properties', msg: expect.stringContaining('not offered') },
      { path: 'body/execution/acquisition', msg: expect.stringContaining('not offered') },
    ]);
    expect(issues.every((i) => !i.msg.includes('unknown field'))).toBe(true);
  });
});
