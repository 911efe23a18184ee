/**
 * The computations behind the legacy analysis operations (docs/operations.md): similarity (pair,
 * batch, matrix, database nearest-neighbour distributions), embeddings and search by embedding,
 * clustering (Butina, k-means, k-medoids) and nearest cluster, 2D maps (PCA, UMAP), histograms.
 * Pure functions over typed arrays; the heavy ones take row ranges or shards so a worker thread or
 * a Temporal activity can run one chunk, and the chunks merge exactly.
 */
export { AnalysisError, ANALYSIS_ERROR_CODES, analysisToDomain, type AnalysisErrorCode } from './errors.ts';
export { ANALYSIS_LIMITS } from './limits.ts';
export { fingerprintSet, fromPacked, rowOf, sliceSet, type FingerprintSet } from './fingerprints.ts';
export {
  MORGAN_TANIMOTO,
  SIMILARITY_SEARCH_TYPES,
  metricFor,
  type SimilarityMetric,
  type SimilaritySearchType,
} from './similarity/metrics.ts';
export {
  pairSimilarity,
  batchSimilarity,
  similarityMatrix,
  similarityRows,
  rowChunks,
  type SimilarityMatrix,
} from './similarity/operations.ts';
export { tanimotoMatrixInto, tanimotoAboveEach, TILE_ROWS } from './similarity/tanimoto-matrix.ts';
export { nearestInShard, mergeNearest, type Nearest, type NearestPart } from './similarity/database.ts';
export { scoreDistribution, quantileSorted, type ScoreDistribution } from './similarity/distribution.ts';
export {
  EMBEDDING_KINDS,
  MORGAN_DIMENSIONS,
  embedMorgan,
  embedMorganList,
  centroidOf,
  embeddingQuery,
  bitsVector,
  type EmbeddingKind,
  type EmbeddedMolecule,
} from './embed/embeddings.ts';
export { morganCodes, morganCounts } from './embed/morgan-counts.ts';
export {
  butina,
  butinaNeighbours,
  butinaClusters,
  concatNeighbours,
  tanimotoDistance,
  type NeighbourLists,
} from './cluster/butina.ts';
export { kmeans, kmeansPlusPlus, type KMeansOptions, type KMeansResult } from './cluster/kmeans.ts';
export {
  kmedoids,
  kmedoidsPlusPlus,
  euclideanDistances,
  type DistanceMatrix,
  type KMedoidsResult,
} from './cluster/kmedoids.ts';
export { matrixFromRows, type Matrix } from './cluster/matrix.ts';
export {
  CLUSTERING_FORMAT,
  CLUSTER_METHODS,
  nearestCluster,
  serializeClustering,
  parseClustering,
  type ClusteringModel,
  type ClusterMethod,
  type Placement,
} from './cluster/model.ts';
export {
  pca,
  sparseFromFingerprints,
  sparseFromMatrix,
  orientComponent,
  type PcaResult,
  type SparseRows,
} from './map/pca.ts';
export { umap2d, fingerprintKnn, vectorKnn, type UmapOptions } from './map/umap.ts';
export { MAP_METHODS, mapMethod, type MapMethod } from './map/methods.ts';
export { tsne2d, tsneDistances, jointProbabilities, klDivergence, type TsneOptions } from './map/tsne.ts';
export { maxMapMolecules, syncMapLimit, map2d } from './ops/map.ts';
export { cluster } from './ops/cluster.ts';
export {
  createHistogram,
  histogramOf,
  linspaceEdges,
  edgesOf,
  type Histogram,
  type HistogramSpec,
  type HistogramAccumulator,
} from './histogram/histogram.ts';
export { HISTOGRAM_COLUMNS, histogramColumn, addShardColumn } from './histogram/catalog-column.ts';
export { JOB_HISTOGRAM_COLUMNS, jobResultColumn } from './histogram/job-result-column.ts';
export { createAnalysisPool, type AnalysisPool, type AnalysisAnswers } from './pool.ts';
export {
  runAnalysis,
  embeddingKind,
  EMBEDDING_FORMATS,
  type AnalysisRequest,
  type ClusterAnswer,
  type MapAnswer,
  type MapParams,
  type ClusterParams,
} from './ops/index.ts';
export {
  embeddingsChunk,
  matrixChunk,
  nearestOfSmiles,
  nearestScores,
  parseChunk,
  shardQueries,
} from './ops/job-chunks.ts';
