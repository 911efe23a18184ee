/**
 * The closed sets of the molecule-selection/1 document (client contract, "Selections and runs").
 * Validation errors list these values, so every enumerated field is a table here.
 */
import { DESCRIPTOR_NAMES } from '../chem/index.ts';

export const SELECTION_SCHEMA_VERSION = 'molecule-selection/1';
export const STRATEGY_TYPES = ['ranked', 'sample'] as const;
export const SAMPLE_DISTRIBUTIONS = ['route_product_tuple'] as const;
export const STRUCTURE_FORMATS = ['smiles', 'smarts'] as const;
export const OBJECTIVE_TYPES = ['similarity'] as const;
export const DIRECTIONS = ['maximize'] as const;
/** Metrics an objective may name; the cheese.* ones validate but need the shape capability. */
export const METRIC_IDS = ['rdkit.ecfp4_tanimoto', 'cheese.shape', 'cheese.electrostatic'] as const;
export const AVAILABLE_METRIC_IDS = ['rdkit.ecfp4_tanimoto'] as const;
/** The v2 search `scorer` word of each metric (what /search and /search_cheese answer). */
export const METRIC_SCORERS = {
  'rdkit.ecfp4_tanimoto': 'morgan',
  'cheese.shape': 'shape',
  'cheese.electrostatic': 'esp',
} as const;
export const PROPERTY_OPERATORS = ['gt', 'gte', 'lt', 'lte', 'range'] as const;
export const MISSING_POLICIES = ['reject', 'accept'] as const;
export const FIDELITIES = ['exact_product'] as const;
/** constraints.price: the one basis catalog prices are listed in (the released SDK's max_price sends it). */
export const PRICE_CURRENCIES = ['USD'] as const;
export const PRICE_AMOUNTS_MG = [1] as const;
export const PRICE_SHIP_TO = ['US'] as const;
/** `reject` (default): a price bound excludes unpriced products; `keep` returns them with price null. */
export const PRICE_MISSING_POLICIES = ['reject', 'keep'] as const;
export const RELATIONSHIP_TYPES = ['scaffold_relation'] as const;
export const SCAFFOLD_METHODS = ['rdkit.bemis_murcko'] as const;
export const RELATIONSHIP_OPERATORS = ['different'] as const;
export const STRUCTURE_RELATIONS = ['contains'] as const;
/** `balanced` is the released v2 SDK's default (deepmedchem 0.4.0b5): between fast and accurate. */
export const QUALITIES = ['fast', 'balanced', 'accurate', 'very_accurate'] as const;
export const INCLUDE_VALUES = [
  'properties',
  'constraint_evidence',
  'objective_components',
  'execution_plan',
  // Synthon spaces: each hit's synthons (slot, synthon_id, smiles); nothing on enumerated catalogs.
  'synthons',
] as const;

/** Shortlist multiplier implied by the quality when the document gives none. */
export const QUALITY_MULTIPLIER = { fast: 10, balanced: 15, accurate: 20, very_accurate: 50 } as const;

export const DEFAULT_PORTFOLIO_LIMIT = 100;
export const MAX_PORTFOLIO_LIMIT = 10_000;
export const MAX_SHORTLIST_MULTIPLIER = 100;
export const MAX_REFERENCES = 100;
export const MAX_CONDITIONS = 50;

/**
 * Versioned property presets. `latest` (or no version) resolves to the newest version, so the
 * normalized document, and with it the selection hash, always names a concrete version.
 * lipinski-ro5 v1: all four of Lipinski's rules hold (no violation allowed).
 */
export const PRESETS = {
  'lipinski-ro5': {
    latest: '1',
    versions: {
      '1': [
        { property_id: 'molecular_weight', operator: 'lte', value: 500 },
        { property_id: 'clogp', operator: 'lte', value: 5 },
        { property_id: 'h_bond_donor', operator: 'lte', value: 5 },
        { property_id: 'h_bond_acceptors', operator: 'lte', value: 10 },
      ],
    },
  },
} as const satisfies Record<
  string,
  {
    latest: string;
    versions: Record<string, readonly { property_id: string; operator: string; value: number }[]>;
  }
>;

export type PresetId = keyof typeof PRESETS;
export const DESCRIPTOR_PROPERTY_IDS: readonly string[] = DESCRIPTOR_NAMES;

export type StrategyType = (typeof STRATEGY_TYPES)[number];
export type MetricId = (typeof METRIC_IDS)[number];
export type PropertyOperator = (typeof PROPERTY_OPERATORS)[number];
export type Quality = (typeof QUALITIES)[number];
export type IncludeValue = (typeof INCLUDE_VALUES)[number];

export interface StructureQuery {
  format: (typeof STRUCTURE_FORMATS)[number];
  value: string;
}
export interface Reference {
  id: string;
  structure: StructureQuery;
}
export interface Objective {
  type: 'similarity';
  direction: 'maximize';
  metric_id: MetricId;
  reference_id: string;
}
export interface PropertyConstraint {
  type: 'property';
  property_id: string;
  operator: PropertyOperator;
  value: number | { lower: number; upper: number };
  units?: string;
  missing: (typeof MISSING_POLICIES)[number];
  required_fidelity: (typeof FIDELITIES)[number];
}
export interface PriceConstraint {
  /** Largest list price kept, in whole USD (a price equal to it passes). */
  max: number;
  currency: 'USD';
  amount_mg: 1;
  ship_to: 'US';
  missing: (typeof PRICE_MISSING_POLICIES)[number];
}
export interface Relationship {
  type: 'scaffold_relation';
  method_id: 'rdkit.bemis_murcko';
  operator: 'different';
  reference_id: string;
}
export interface StructureCondition {
  type: 'structure';
  id: string;
  pattern_id?: string;
  query: StructureQuery;
  relation: 'contains';
  count: { min: number; max?: number };
}
export interface NormalizedSelection {
  schema_version: typeof SELECTION_SCHEMA_VERSION;
  database: { database_id: string; release_id: string };
  strategy: { type: StrategyType; distribution?: (typeof SAMPLE_DISTRIBUTIONS)[number] };
  references: Reference[];
  objectives: Objective[];
  constraints: {
    presets: { preset_id: PresetId; version: string }[];
    properties: PropertyConstraint[];
    reactions: Record<string, unknown>[];
    relationships: Relationship[];
    structures: {
      all: StructureCondition[];
      any: { conditions: StructureCondition[]; minimum: number };
      none: StructureCondition[];
    };
    /** Present only when the document sets it (documents without it keep their hashes). */
    price?: PriceConstraint;
  };
  execution: { quality: Quality; seed: number; shortlist_multiplier: number };
  include: IncludeValue[];
  portfolio: { limit: number; max_per_scaffold?: number };
}

/** What normalization needs to know about the target library. */
export interface LibraryFacts {
  database_id: string;
  release: string;
  kind: 'enumerated' | 'synthon';
  /** Property ids the library can evaluate exactly (descriptors, and predictions when present). */
  property_ids: readonly string[];
}
