import { readFileSync } from 'node:fs';

export interface FilterReferenceMolecule {
  input: string;
  canonical: string;
  qed: number;
  qed_properties: Record<'MW' | 'ALOGP' | 'HBA' | 'HBD' | 'PSA' | 'ROTB' | 'AROM' | 'ALERTS', number>;
  pains: string[];
  pains_filter_catalog: boolean;
  lipinski: { mw: number; logp: number; hbd: number; hba: number; violations: number; pass: boolean };
  contains_query: boolean[];
  in_query: boolean[];
}

export interface FilterReference {
  rdkit_version: string;
  substructure_queries: string[];
  molecules: FilterReferenceMolecule[];
}

/** Python RDKit reference values: scripts/reference/make_filters_fixture.py. */
export function loadFilterReference(): FilterReference {
  return JSON.parse(
    readFileSync(new URL('../../fixtures/filters-reference.json', import.meta.url), 'utf8'),
  ) as FilterReference;
}
