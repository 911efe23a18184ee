/** Public surface of engine/admet: features, models, domain checks and the threaded predictor. */
export { ADMET_ENDPOINTS, type AdmetEndpoint } from './endpoints.ts';
export {
  ADMET_FEATURE_LENGTH,
  ADMET_FEATURE_SPEC,
  computeAdmetFeatures,
  writeAdmetFeatures,
  writeAdmetFeaturesFromMol,
} from './features.ts';
export {
  openAdmetModels,
  DEFAULT_MODEL_DIR,
  type AdmetModels,
  type AdmetManifest,
  type AdmetBatchResult,
} from './onnx-pool.ts';
export { predictSmilesBatch, prepareAdmetRow, oodMask, oodNames, type AdmetTable } from './predict.ts';
export {
  createAdmetPredictor,
  concatTables,
  type AdmetPredictor,
  type AdmetPredictorOptions,
} from './predictor.ts';
