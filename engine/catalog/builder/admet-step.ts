/**
 * The ADMET step of a catalog build: runs inside the build workers on the features the parse just
 * computed, so each molecule is parsed once and its predictions become part of the chunk checkpoint.
 */
import { ADMET_ENDPOINTS } from '../../admet/endpoints.ts';
import type { AdmetModels } from '../../admet/onnx-pool.ts';
import { oodMask } from '../../admet/predict.ts';
import { ADMET_NAMES } from '../schema.ts';
import type { ChunkResult } from './parse-chunk.ts';

/** Batch size for the models: bounds the feature tensor (256 rows * 2091 floats = 2 MB). */
const MODEL_BATCH_ROWS = 256;

/**
 * Scores the parsed rows of `r` (which must carry `features`) and sets `r.admet` (rows * 22,
 * row-major, ADMET_NAMES order) and `r.ood`; drops `r.features`.
 */
export async function predictChunk(models: AdmetModels, r: ChunkResult): Promise<void> {
  if ((ADMET_ENDPOINTS as readonly string[]).join() !== (ADMET_NAMES as readonly string[]).join())
    throw new Error('ADMET endpoints and catalog columns differ');
  const features = r.features;
  if (!features) throw new Error(`chunk ${r.chunk} has no ADMET features`);
  const n = r.lines.length;
  const ne = ADMET_ENDPOINTS.length;
  const width = features.length / Math.max(1, n);
  const admet = new Float32Array(n * ne);
  const ood = new Uint32Array(n);
  for (let s = 0; s < n; s += MODEL_BATCH_ROWS) {
    const m = Math.min(MODEL_BATCH_ROWS, n - s);
    const res = await models.predictBatch(features.subarray(s * width, (s + m) * width), m);
    for (let e = 0; e < ne; e++) {
      const col = res.scores[ADMET_ENDPOINTS[e]];
      for (let k = 0; k < m; k++) admet[(s + k) * ne + e] = col[k];
    }
    for (let k = 0; k < m; k++) ood[s + k] = oodMask(res.inDomain, k);
  }
  r.admet = admet;
  r.ood = ood;
  delete r.features;
}
