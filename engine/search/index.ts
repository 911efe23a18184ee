/**
 * Fingerprint search: exact Tanimoto k-NN / threshold / batch / centroid search over popcount-sorted
 * catalog shards with a WebAssembly popcount kernel and BitBound pruning (see docs/search.md).
 * `createSearchPool` serves requests on worker threads; `loadShardForScan` + `scanShardTopK` +
 * `mergeTopK` scan shard by shard in-process for job activities.
 */
export { createSearchPool } from './pool.ts';
export type {
  SearchPool,
  SearchPoolOptions,
  SearchPoolStats,
  KnnRequest,
  KnnManyRequest,
  CentroidRequest,
} from './pool.ts';
export { loadShardForScan, scanShardTopK } from './shard-memory.ts';
export type { ShardLike, ReadShard } from './shard-memory.ts';
export type { ScanResult } from './scan.ts';
export { mergeTopK, mergeHits, compareHits, createTopKHeap } from './topk.ts';
export type { Hit, ShardTopK, TopKPart, TopKHeap } from './topk.ts';
export { prepareTanimoto, prepareCentroid, prepareWeights, centroidTanimoto, QUERY_KINDS } from './query.ts';
export type { PreparedQuery, TanimotoQuery, CentroidQuery, QueryKind } from './query.ts';
export { popcountOffsets, tanimotoBounds, tanimotoPopcountWindow, minIntersection } from './bitbound.ts';
export { BLOCK_BYTES } from './wasm/kernel-blocks.ts';
export { tanimotoJs, popcountOf } from './kernel-js.ts';
export type { CatalogLike } from './arena-load.ts';
