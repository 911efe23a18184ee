import { describe, expect, it } from 'vitest';
import { Value } from '@sinclair/typebox/value';
import { RunDocumentSchema, SelectionDocumentSchema } from '../../../api/schemas/documents.ts';
import {
  itemSelection,
  normalizeSelection,
  parseRunDocument,
  runItemIds,
  type LibraryFacts,
} from '../../../engine/selection/index.ts';
import { DESCRIPTOR_NAMES } from '../../../engine/chem/index.ts';

// The OpenAPI schemas document what the service's own validator (engine/selection) accepts; these
// documents exercise every part of molecule-selection/1 and run/1, so a rule added to one side
// and not the other shows up here.
const facts: LibraryFacts = {
  database_id: 'drugs',
  release: '2024.1',
  kind: 'enumerated',
  property_ids: DESCRIPTOR_NAMES,
};
const ref = (id: string, value: string) => ({ id, structure: { format: 'smiles', value } });
const ranked = {
  schema_version: 'molecule-selection/1',
  database: { database_id: 'drugs' },
  strategy: { type: 'ranked' },
  references: [ref('q', 'CC(=O)Oc1ccccc1C(=O)O')],
  objectives: [
    { type: 'similarity', direction: 'maximize', metric_id: 'rdkit.ecfp4_tanimoto', reference_id: 'q' },
  ],
  portfolio: { limit: 5 },
};
const everything = {
  database: { database_id: 'drugs', release_id: '2024.1' },
  strategy: { type: 'ranked' },
  references: [ref('q', 'c1ccccc1O'), { id: 'r', structure: { value: 'CCO' } }],
  objectives: [{ metric_id: 'cheese.shape', reference_id: 'r' }],
  constraints: {
    presets: [{ preset_id: 'lipinski-ro5' }, { preset_id: 'lipinski-ro5', version: 'latest' }],
    properties: [
      { property_id: 'molecular_weight', operator: 'lte', value: 400, units: 'Da', missing: 'accept' },
      { type: 'property', property_id: 'clogp', operator: 'range', value: { lower: -1, upper: 4 } },
    ],
    reactions: [],
    relationships: [{ operator: 'different', reference_id: 'q', method_id: 'rdkit.bemis_murcko' }],
    structures: {
      all: [{ id: 'ring', query: { format: 'smarts', value: 'a' }, count: { min: 1, max: null } }],
      any: { conditions: [{ id: 'n', pattern_id: 'amine', query: { value: 'N' } }], minimum: 1 },
      none: [
        { type: 'structure', id: 'hal', query: { format: 'smarts', value: '[F,Cl]' }, relation: 'contains' },
      ],
    },
  },
  execution: { quality: 'accurate', seed: 7, shortlist_multiplier: null },
  include: ['properties', 'constraint_evidence'],
  portfolio: { limit: 12, max_per_scaffold: 2 },
};
const sample = {
  database: { database_id: 'drugs' },
  strategy: { type: 'sample', distribution: 'route_product_tuple' },
};

const validatorAccepts = (doc: unknown) => {
  try {
    normalizeSelection(doc, facts);
    return true;
  } catch {
    return false;
  }
};

describe('selection document schema', () => {
  for (const [name, doc] of Object.entries({ ranked, everything, sample }))
    it(`accepts the ${name} document the validator accepts`, () => {
      expect(validatorAccepts(doc)).toBe(true);
      expect([...Value.Errors(SelectionDocumentSchema, doc)]).toEqual([]);
    });

  const rejected: Record<string, unknown> = {
    'an unknown field': { ...ranked, colour: 'blue' },
    'no strategy': { database: ranked.database },
    'an unknown strategy': { ...ranked, strategy: { type: 'best' } },
    'an unknown metric': { ...ranked, objectives: [{ metric_id: 'dice', reference_id: 'q' }] },
    'a limit above the maximum': { ...ranked, portfolio: { limit: 10_001 } },
    'a blank reference id': { ...ranked, references: [ref(' ', 'CCO')] },
    'an unknown operator': {
      ...ranked,
      constraints: { properties: [{ property_id: 'clogp', operator: 'eq', value: 1 }] },
    },
    'a reaction constraint': { ...ranked, constraints: { reactions: [{}] } },
    'a fractional seed': { ...ranked, execution: { seed: 1.5 } },
  };
  for (const [name, doc] of Object.entries(rejected))
    it(`rejects ${name}, as the validator does`, () => {
      expect(validatorAccepts(doc)).toBe(false);
      expect(Value.Check(SelectionDocumentSchema, doc)).toBe(false);
    });
});

describe('run document schema', () => {
  const { references: _drop, ...template } = everything;
  const runs = {
    selection: { schema_version: 'run/1', kind: 'selection', selection: ranked, metadata: { who: 'test' } },
    selection_batch: {
      kind: 'selection_batch',
      selection_template: template,
      items: [
        { id: 'a', references: [ref('q', 'CCO'), ref('r', 'CCN')] },
        { id: 'b', references: [ref('q', 'c1ccccc1'), ref('r', 'CCC')] },
      ],
      failure_policy: 'continue',
    },
  };
  for (const [name, doc] of Object.entries(runs))
    it(`accepts the ${name} run the validator accepts`, () => {
      const parsed = parseRunDocument(doc);
      for (let i = 0; i < runItemIds(parsed).length; i++)
        expect(validatorAccepts(itemSelection(parsed, i).selection)).toBe(true);
      expect([...Value.Errors(RunDocumentSchema, doc)]).toEqual([]);
    });

  it('rejects an unknown kind, an unknown field and non-string metadata, as the validator does', () => {
    for (const doc of [
      { kind: 'sweep', selection: ranked },
      { kind: 'selection', selection: ranked, priority: 1 },
      { kind: 'selection', selection: ranked, metadata: { n: 1 } },
    ]) {
      expect(() => parseRunDocument(doc)).toThrow();
      expect(Value.Check(RunDocumentSchema, doc)).toBe(false);
    }
  });
});
