/** Public surface of engine/selection: molecule-selection/1 normalization, hashing and execution. */
export * from './spec.ts';
export { normalizeSelection, selectionDatabaseId } from './normalize.ts';
export { canonicalJson, documentHash } from './hash.ts';
export { createPrng, nextBelow, sampleIndices } from './prng.ts';
export { priceCapabilityGap } from './candidate-properties.ts';
export {
  createMemoryLibrary,
  libraryFromRecords,
  parseMoleculeRecords,
  bruteForceKnn,
  type MoleculeRecord,
  libraryFacts,
  type Library,
  type LibraryInfo,
  type KnnResult,
} from './library.ts';
export {
  executeSelection,
  selectionMetric,
  constraintExecution,
  checkCapabilities,
  needsExternalScores,
  sampleRows,
  ENGINE_METRIC_IDS,
  type ExternalObjectiveScores,
  type SelectionHit,
  type SelectionOutcome,
} from './execute.ts';
export { createChecker, type Checker, type Loc } from './check.ts';
export { openCatalogLibrary, shardsLibrary, catalogLibraryInfo, type PoolKnn } from './catalog-library.ts';
export { staticRegistry, catalogRegistry, type LibraryRegistry } from './registry.ts';
export * from './run-document.ts';
export { prepareSelection, type PreparedSelection } from './prepare.ts';
export {
  checkRunDocument,
  itemReferenceError,
  runCapabilityIssue,
  runItemObjectiveIssue,
  runLimitViolation,
  runPriceGap,
  type CheckedRun,
  type RunItemError,
  type RunWork,
} from './run-check.ts';
export { openScanLibrary } from './catalog-library.ts';
export type { LibrarySource } from './library.ts';
export {
  createSelectionPool,
  executeSelectionIn,
  type SelectionPool,
  type SelectionPoolOptions,
  type SelectionPoolStats,
} from './selection-pool.ts';
