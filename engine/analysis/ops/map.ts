/** 2D maps of a SMILES list: PCA (exact, scikit-learn's sign rule), seeded UMAP or seeded exact t-SNE. */
import type { RDKitModule } from '../../chem/rdkit.ts';
import { matrixFromRows } from '../cluster/matrix.ts';
import { AnalysisError } from '../errors.ts';
import { ANALYSIS_LIMITS } from '../limits.ts';
import { pca, sparseFromFingerprints, sparseFromMatrix } from '../map/pca.ts';
import { mapMethod, type MapMethod } from '../map/methods.ts';
import { tsne2d } from '../map/tsne.ts';
import { umap2d } from '../map/umap.ts';
import { metricFor } from '../similarity/metrics.ts';
import { embeddingKind } from './embed.ts';
import { parseList } from './molecules.ts';

export interface MapParams {
  method: string;
  searchType: string;
  embeddingType: string;
  seed: number;
  nNeighbors: number;
  minDist: number;
  nEpochs?: number;
  /** t-SNE perplexity (5-50, default 30) and iterations (250-5000, default 1000). */
  perplexity?: number;
  nIter?: number;
  /** Molecules accepted: the method's synchronous limit unless a job sets its own. */
  maxMolecules?: number;
}

/** Molecules a map job takes by each method (the engine functions enforce the same). */
export function maxMapMolecules(method: string): number {
  if (method === 'umap') return ANALYSIS_LIMITS.maxUmapMolecules;
  if (method === 'tsne') return ANALYSIS_LIMITS.maxTsneMolecules;
  return ANALYSIS_LIMITS.maxPcaMolecules;
}

/** Molecules mapped synchronously by each method. */
export function syncMapLimit(method: string): number {
  if (method === 'umap') return ANALYSIS_LIMITS.syncUmapMolecules;
  if (method === 'tsne') return ANALYSIS_LIMITS.syncTsneMolecules;
  return ANALYSIS_LIMITS.syncPcaMolecules;
}

export interface MapAnswer {
  visualisation_method: MapMethod;
  smiles: (string | null)[];
  coordinates: ([number, number] | null)[];
  explained_variance_ratio?: number[];
  errors: (string | null)[];
}

/**
 * Errors about the molecules (too few valid rows, too many) name `field`: `search_input` for a
 * list, the route's `input_file` for an uploaded file.
 */
export function map2d(rd: RDKitModule, smiles: string[], p: MapParams, field = 'search_input'): MapAnswer {
  try {
    return mapOf(rd, smiles, p);
  } catch (err) {
    if (err instanceof AnalysisError && err.field === 'search_input' && field !== err.field)
      throw new AnalysisError(err.code, field, err.message);
    throw err;
  }
}

function mapOf(rd: RDKitModule, smiles: string[], p: MapParams): MapAnswer {
  metricFor(p.searchType);
  const method = mapMethod(p.method);
  const kind = embeddingKind(p.embeddingType);
  const list = parseList(rd, smiles, 'search_input', p.maxMolecules ?? syncMapLimit(method), kind);
  const coordinates: MapAnswer['coordinates'] = smiles.map(() => null);
  const out: MapAnswer = {
    visualisation_method: method,
    smiles: list.canonical,
    coordinates,
    errors: list.errors,
  };
  let xy: Float64Array;
  if (method === 'pca') {
    const rows =
      kind === 'bits'
        ? sparseFromFingerprints(list.fps)
        : sparseFromMatrix(matrixFromRows(list.vectors, 'search_input'));
    const r = pca(rows, 2);
    xy = r.coords;
    out.explained_variance_ratio = r.explainedVarianceRatio;
  } else {
    const input =
      kind === 'bits' ? { fps: list.fps } : { vectors: matrixFromRows(list.vectors, 'search_input') };
    xy =
      method === 'tsne'
        ? tsne2d(input, { seed: p.seed, perplexity: p.perplexity, nIter: p.nIter })
        : umap2d(input, { seed: p.seed, nNeighbors: p.nNeighbors, minDist: p.minDist, nEpochs: p.nEpochs });
  }
  list.valid.forEach((i, r) => (coordinates[i] = [xy[r * 2], xy[r * 2 + 1]]));
  return out;
}
