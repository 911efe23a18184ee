/**
 * Input limits of the analysis operations, in one table so the engine, the API's 422s and
 * docs/operations.md state the same numbers. `sync*` limits decide what the API answers on its
 * engine threads; above them (and up to the `max*` limits, which the engine functions enforce) an
 * operation runs as a Temporal workflow with results in the object store.
 */
export const ANALYSIS_LIMITS = {
  /** Molecules in one synchronous list (batch similarity targets, embeddings, cluster, visualize). */
  syncMolecules: 1000,
  /** Cells (N × M) of a similarity matrix answered synchronously. */
  syncMatrixCells: 250_000,
  /** Cells of a similarity matrix computed by a workflow (1,000 × 100,000 as float32: 400 MB). */
  maxMatrixCells: 100_000_000,
  /** Molecules clustered synchronously (Butina, k-means, k-medoids). */
  syncClusterMolecules: 2000,
  /** Molecules a Butina or k-means clustering workflow takes. */
  maxClusterMolecules: 100_000,
  /** Molecules a k-medoids workflow takes (it holds the n × n float32 distance matrix: 400 MB). */
  maxMedoidMolecules: 10_000,
  /** Clusters of k-means and k-medoids. */
  maxClusters: 1000,
  /** Molecules mapped synchronously by PCA / by UMAP. */
  syncPcaMolecules: 5000,
  syncUmapMolecules: 1000,
  /**
   * Molecules mapped synchronously by exact t-SNE: O(n²) per iteration, 1,000 iterations; measured
   * 5.5 s at 500 and 16 s at 1,000 on the shared 2-core machine at load average 15.
   */
  syncTsneMolecules: 500,
  /** Molecules a map workflow takes by PCA / by UMAP. */
  maxPcaMolecules: 1_000_000,
  maxUmapMolecules: 20_000,
  /** Molecules a t-SNE map workflow takes (one n × n float64 matrix: 200 MB at 5,000). */
  maxTsneMolecules: 5000,
  /** Molecules embedded in 3D per synchronous request (chem3d worker, ~0.3 s each). */
  sync3dMolecules: 20,
  /** Rows of an uploaded file an analysis job takes (/embeddings_file, /similarity_matrix files, /database_similarity). */
  maxFileMolecules: 100_000,
  /** Molecules of a list (or file) /database_similarity compares in a job. */
  maxDatabaseSimilarityMolecules: 100_000,
  /** Embedding dimensions accepted by search by embedding and k-means. */
  maxDimensions: 4096,
  /** Bins of a histogram. */
  maxBins: 1000,
  /** Neighbours returned by search by embedding (as /molsearch). */
  maxNeighbors: 100,
} as const;
