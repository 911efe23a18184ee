/** Public surface of engine/shape: 3D shape and electrostatic similarity (see README.md). */
export { checkConformerSet, conformerCoords, type ConformerSet } from './conformers.ts';
export { espIntegral, espKernel, espSimilarity, ESP_METRICS, type EspMetric } from './esp.ts';
export { overlapVolume, shapeTanimotoAt } from './gaussian.ts';
export { prepareShape, type PreparedShape } from './frame.ts';
export {
  alignShapes,
  applyTransform,
  espAtAlignment,
  ALIGN_DEFAULTS,
  ALIGN_PRESETS,
  type AlignOptions,
  type Alignment,
} from './align.ts';
export { describeConformers, usrSimilarity, DESCRIPTOR_LENGTH } from './descriptors.ts';
export { descriptorTable, scanShortlist, type DescriptorTable, type Shortlist } from './scan.ts';
export { createUsrScanner, type UsrScanner } from './wasm-scan.ts';
export { chargeGridDescriptors, gridDescriptors, gridScan, GRID_LENGTH } from './gaussian-grid.ts';
export { createGridScanner, type GridScanner } from './wasm-grid.ts';
export { poseChargeScan, POSE_SLACK } from './pose-grid.ts';
export {
  espPoolRows,
  espPrescreenScan,
  ESP_POOL_FACTOR,
  MAX_PRESCREEN_POSES,
  tabulatedEspIntegral,
} from './esp-prescreen.ts';
export {
  scoreShortlist,
  SHAPE_METRICS,
  type ScoreShortlistOptions,
  type ScoredCandidate,
  type ShapeMetric,
} from './score.ts';
export { rankBy3d, scoreEmbedded, type Ranked3d, type Score3d } from './score-embedded.ts';
export {
  CHUNK_PAIRS,
  createShapePool,
  INTERACTIVE_ROWS,
  shapeLane,
  type ShapeLane,
  type ShapePool,
  type ShapeRunOptions,
} from './pool.ts';
export {
  buildGridTables,
  gridConformers,
  GRID_MAX_CONFORMERS,
  shardRow,
  type GridTables,
  type ShardConformers,
} from './grid-tables.ts';
