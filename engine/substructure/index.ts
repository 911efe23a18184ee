/** Public surface of engine/substructure: substructure scans over enumerated libraries on a worker thread. */
export { createSubstructureRunner, type SubstructureRunner } from './runner.ts';
export {
  scanSubstructure,
  createIndex,
  parseQuery,
  type SubstructureHit,
  type SubstructureScanResult,
  type SubstructureIndex,
} from './scan.ts';
