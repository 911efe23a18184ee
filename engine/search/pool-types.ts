/** The public contract of the search pool (engine/search/pool.ts): options, requests, stats. */
import type { ShardData } from '../catalog/reader.ts';
import type { Logger } from '../../platform/logger.ts';
import type { CatalogLike } from './arena-load.ts';
import type { PreparedQuery } from './query.ts';
import type { ReadShard } from './shard-memory.ts';
import type { Hit } from './topk.ts';

export interface SearchPoolOptions {
  /** Worker threads (default: available parallelism). */
  threads?: number;
  log?: Logger;
  /** Shard parser (default: engine/catalog/reader.ts readShard); must return zero-copy fp/popcount views. */
  readShard?: ReadShard<ShardData>;
  /** Rows per scan task; a shard is split into segments of this size so one shard uses every thread. */
  segmentRows?: number;
  /** Skip rows by the block-popcount bound before reading fingerprints (default true; same results either way). */
  blockBound?: boolean;
}

/** When a search must give up: the request's whole-life deadline, its client going away. */
export interface SearchLimits {
  /** Date.now() ms; past it the search rejects with `overloaded` and queued work is withdrawn. */
  deadline?: number;
  /** Aborting withdraws the search's queued work; it rejects with the signal's reason. */
  signal?: AbortSignal;
}
export interface KnnRequest extends SearchLimits {
  catalogs: string[];
  query: Uint8Array;
  k: number;
  threshold?: number;
}
export interface KnnManyRequest extends SearchLimits {
  catalogs: string[];
  queries: Uint8Array[];
  k: number;
  threshold?: number;
}
export type CentroidRequest = KnnManyRequest;

export interface SearchPoolStats {
  threads: number;
  catalogs: string[];
  shards: number;
  rows: number;
  bytesLoaded: number;
  searches: number;
  rowsScanned: number;
  /** Rows whose fingerprints were read (rowsScanned minus the rows the block bound rejected). */
  rowsTouched: number;
  busyThreads: number;
  queuedSearches: number;
}

export interface SearchPool {
  /** Loads every shard of a catalog into shared memory and registers it with all threads. Idempotent per catalog id. */
  loadCatalog(catalog: CatalogLike): Promise<void>;
  unloadCatalog(id: string): Promise<void>;
  /** The parsed shard (zero-copy view), to read the columns of hits. */
  shard(catalog: string, index: number): ShardData | undefined;
  /** Exact top-k by Tanimoto over the catalogs, sorted by similarity desc then (catalog, shard, row). */
  knn(req: KnnRequest): Promise<Hit[]>;
  /** One top-k per query (batch mode), in query order. */
  knnMany(req: KnnManyRequest): Promise<Hit[][]>;
  /** Top-k by continuous Tanimoto to the mean fingerprint of the queries (see prepareCentroid). */
  centroid(req: CentroidRequest): Promise<Hit[]>;
  /** Top-k for an already prepared query (search by a given embedding, engine/analysis). */
  knnPrepared(req: { catalogs: string[]; query: PreparedQuery; k: number } & SearchLimits): Promise<Hit[]>;
  stats(): SearchPoolStats;
  /** Stops all threads (pending searches reject with code 'unavailable') and frees the memories. */
  close(): Promise<void>;
}
