/**
 * Public surface of engine/substructure: substructure scans over enumerated libraries on engine
 * threads, in time slices.
 */
export {
  createSubstructureRunner,
  type SubstructureQuery,
  type SubstructureRunner,
  type SubstructureRunnerOptions,
} from './runner.ts';
export {
  scanSubstructure,
  createIndex,
  parseQuery,
  isValidQuery,
  indexBytes,
  type SubstructureHit,
  type SubstructureScanResult,
  type SubstructureSlice,
  type SubstructureIndex,
  type IndexBudget,
} from './scan.ts';
