/**
 * The analysis requests a thread runs (engine/analysis/pool.ts): one message type per synchronous
 * operation of docs/operations.md, dispatched to plain functions over RDKit and the analysis
 * kernels. Input problems throw AnalysisError naming the parameter.
 */
import type { RDKitModule } from '../../chem/rdkit.ts';
import { cluster, placeInClustering, type ClusterParams } from './cluster.ts';
import { centroid, embeddings } from './embed.ts';
import { map2d, type MapParams } from './map.ts';
import { batch, matrix, pair } from './similarity.ts';

export type { PairAnswer, BatchAnswer, MatrixAnswer } from './similarity.ts';
export type { EmbeddingsAnswer, CentroidAnswer } from './embed.ts';
export type { ClusterAnswer, ClusterParams, NearestClusterAnswer } from './cluster.ts';
export type { MapAnswer, MapParams } from './map.ts';
export { EMBEDDING_FORMATS, embeddingKind } from './embed.ts';
export { parseList, parseOne, exactTanimoto, type ParsedList } from './molecules.ts';

export type AnalysisRequest =
  | { op: 'pair'; smiles1: string; smiles2: string; searchType: string }
  | { op: 'batch'; query: string; list: string[]; searchType: string }
  | { op: 'matrix'; list1: string[]; list2?: string[]; searchType: string }
  | { op: 'embeddings'; smiles: string[]; searchType: string; kind: string; format: string }
  | { op: 'centroid'; smiles: string[]; searchType: string; kind: string; format?: string }
  | ({ op: 'cluster'; smiles: string[] } & ClusterParams)
  | { op: 'nearest_cluster'; model: string; smiles: string[] }
  | ({ op: 'map'; smiles: string[]; field?: string } & MapParams);

/** Runs one request in the calling thread. */
export function runAnalysis(rd: RDKitModule, req: AnalysisRequest): unknown {
  switch (req.op) {
    case 'pair':
      return pair(rd, req.smiles1, req.smiles2, req.searchType);
    case 'batch':
      return batch(rd, req.query, req.list, req.searchType);
    case 'matrix':
      return matrix(rd, req.list1, req.list2, req.searchType);
    case 'embeddings':
      return embeddings(rd, req.smiles, req.searchType, req.kind, req.format);
    case 'centroid':
      return centroid(rd, req.smiles, req.searchType, req.kind, req.format);
    case 'cluster':
      return cluster(rd, req.smiles, req);
    case 'nearest_cluster':
      return placeInClustering(rd, req.model, req.smiles);
    case 'map':
      return map2d(rd, req.smiles, req, req.field);
  }
}
