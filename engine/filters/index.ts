/** Public surface of engine/filters: the legacy result filters (Lipinski, QED, PAINS, structure relations, solvents). */
export {
  LIPINSKI_LIMITS,
  LIPINSKI_COLUMNS,
  lipinskiPass,
  lipinskiViolations,
  type LipinskiInput,
} from './lipinski.ts';
export {
  QED_PROPERTY_NAMES,
  QED_WEIGHT_MEAN,
  compileQedQueries,
  qed,
  qedFromProperties,
  qedProperties,
  type QedProperties,
  type QedQueries,
} from './qed.ts';
export {
  loadPainsPatterns,
  compilePains,
  compileMergedHsQuery,
  type PainsMatcher,
  type PainsPattern,
} from './pains.ts';
export {
  RDKIT_FILTERS,
  QED_THRESHOLD,
  createFilterContext,
  evaluateFilters,
  type RDKitFilterName,
  type FilterContext,
  type FilterRequest,
  type FilterVerdicts,
  type QedBaseDescriptors,
} from './evaluate.ts';
export { createFilterPool, type FilterPool, type FilterResult } from './filter-pool.ts';
export { SOLVENT_SMILES, createSolventFilter } from './solvents.ts';
export {
  functionalGroups,
  parseFunctionalGroups,
  FUNCTIONAL_GROUPS_URL,
  type SmartsPattern,
} from './functional-groups.ts';
