import { describe, expect, it } from 'vitest';
import {
  canonicalJson,
  documentHash,
  normalizeSelection,
  type LibraryFacts,
} from '../../../engine/selection/index.ts';
import { issuesOf } from '../../support/selection-docs.ts';

const LIB: LibraryFacts = {
  database_id: 'drugs',
  release: '2024.1',
  kind: 'enumerated',
  property_ids: ['molecular_weight', 'clogp', 'h_bond_donor', 'h_bond_acceptors'],
};

const doc = () => ({
  schema_version: 'molecule-selection/1',
  database: { database_id: 'drugs' },
  strategy: { type: 'ranked' },
  references: [
    { id: 'b', structure: { format: 'smiles', value: 'c1ccccc1O' } },
    { id: 'a', structure: { format: 'smiles', value: 'CC(=O)Oc1ccccc1C(=O)O' } },
  ],
  objectives: [
    { type: 'similarity', direction: 'maximize', metric_id: 'rdkit.ecfp4_tanimoto', reference_id: 'a' },
  ],
  constraints: {
    presets: [{ preset_id: 'lipinski-ro5', version: 'latest' }],
    properties: [
      { type: 'property', property_id: 'molecular_weight', operator: 'lt', value: 400 },
      { type: 'property', property_id: 'clogp', operator: 'range', value: { lower: -1, upper: 4 } },
    ],
    structures: { all: [{ type: 'structure', id: 'ring', query: { format: 'smarts', value: 'c1ccccc1' } }] },
    relationships: [
      {
        type: 'scaffold_relation',
        method_id: 'rdkit.bemis_murcko',
        operator: 'different',
        reference_id: 'a',
      },
    ],
  },
  include: ['properties', 'constraint_evidence', 'properties'],
  portfolio: { limit: 20, max_per_scaffold: 1 },
});

/** Reverses the key order of every object, recursively. */
const reverseKeys = (v: unknown): unknown =>
  Array.isArray(v)
    ? v.map(reverseKeys)
    : v && typeof v === 'object'
      ? Object.fromEntries(
          Object.entries(v)
            .reverse()
            .map(([k, x]) => [k, reverseKeys(x)]),
        )
      : v;

describe('normalizeSelection', () => {
  it('fills defaults, resolves preset versions and release, orders set-like members', () => {
    const n = normalizeSelection(doc(), LIB);
    expect(n.database).toEqual({ database_id: 'drugs', release_id: '2024.1' });
    expect(n.constraints.presets).toEqual([{ preset_id: 'lipinski-ro5', version: '1' }]);
    expect(n.references.map((r) => r.id)).toEqual(['a', 'b']);
    expect(n.constraints.properties.map((p) => p.property_id)).toEqual(['clogp', 'molecular_weight']);
    expect(n.constraints.properties[0]).toMatchObject({
      missing: 'reject',
      required_fidelity: 'exact_product',
    });
    expect(n.execution).toEqual({ quality: 'fast', seed: 0, shortlist_multiplier: 10 });
    expect(n.include).toEqual(['constraint_evidence', 'properties']);
    expect(n.constraints.structures.all[0]).toMatchObject({ relation: 'contains', count: { min: 1 } });
  });

  it('gives the same hash whatever the key order and for explicit defaults', () => {
    const h1 = documentHash(normalizeSelection(doc(), LIB));
    const h2 = documentHash(normalizeSelection(reverseKeys(doc()), LIB));
    const explicit = {
      ...doc(),
      execution: { quality: 'fast', seed: 0, shortlist_multiplier: 10 },
      database: { database_id: 'drugs', release_id: '2024.1' },
    };
    const h3 = documentHash(normalizeSelection(explicit, LIB));
    expect(h2).toBe(h1);
    expect(h3).toBe(h1);
    // Pinned: the hash must not change across processes, restarts or releases of this code.
    expect(h1).toBe(PINNED_HASH);
  });

  it('gives a different hash for a different intent', () => {
    const other = { ...doc(), portfolio: { limit: 21, max_per_scaffold: 1 } };
    expect(documentHash(normalizeSelection(other, LIB))).not.toBe(
      documentHash(normalizeSelection(doc(), LIB)),
    );
  });

  it('rejects unknown fields with their JSON path', () => {
    const bad = {
      ...doc(),
      colour: 'red',
      constraints: {
        ...doc().constraints,
        properties: [{ property_id: 'clogp', operator: 'lt', value: 3, weight: 2 }],
      },
    };
    expect(issuesOf(() => normalizeSelection(bad, LIB))).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: 'body/colour' }),
        expect.objectContaining({ path: 'body/constraints/properties/0/weight' }),
      ]),
    );
  });

  it('names the allowed values of enumerated fields and rejects minimize', () => {
    const bad = {
      ...doc(),
      objectives: [
        { type: 'similarity', direction: 'minimize', metric_id: 'rdkit.ecfp4_tanimoto', reference_id: 'a' },
      ],
      constraints: { properties: [{ property_id: 'clogp', operator: 'between', value: 3 }] },
    };
    const issues = issuesOf(() => normalizeSelection(bad, LIB));
    expect(issues).toContainEqual(expect.objectContaining({ path: 'body/objectives/0/direction' }));
    expect(issues.find((i) => i.path === 'body/constraints/properties/0/operator')?.msg).toContain(
      'gt, gte, lt, lte, range',
    );
  });

  it('rejects references that do not exist and releases not served', () => {
    const bad = {
      ...doc(),
      database: { database_id: 'drugs', release_id: '2019.1' },
      objectives: [{ metric_id: 'rdkit.ecfp4_tanimoto', reference_id: 'zz' }],
    };
    const paths = issuesOf(() => normalizeSelection(bad, LIB)).map((i) => i.path);
    expect(paths).toEqual(
      expect.arrayContaining(['body/database/release_id', 'body/objectives/0/reference_id']),
    );
  });
});

describe('canonicalJson', () => {
  it('sorts keys and drops undefined members', () => {
    expect(canonicalJson({ b: 1, a: [{ d: undefined, c: 'x' }] })).toBe('{"a":[{"c":"x"}],"b":1}');
  });
});

const PINNED_HASH = 'sha256:ec1578c8e38e8c57d6aabc0377a2d0bf2671fb4cbc6f688cc9f373230f21cd21';
