/**
 * The search pool: catalogs loaded once into shared kernel memories, scanned in parallel by a
 * fixed set of worker threads. The caller's event loop only splits work, dispatches and merges;
 * every row is scored on a worker. Results are exact and identical to a serial scan.
 */
import { Worker } from 'node:worker_threads';
import { availableParallelism } from 'node:os';
import type { Logger } from '../../platform/logger.ts';
import { DomainError, notFound, validationError } from '../../platform/errors.ts';
import { maxBound } from './bitbound.ts';
import { loadCatalogArenas, type CatalogLike, type LoadedShard } from './arena-load.ts';
import { prepareCentroid, prepareTanimoto, type PreparedQuery } from './query.ts';
import { mergeHits, type Hit } from './topk.ts';
import type { PoolMessage, WorkerReply } from './pool-protocol.ts';
import type { ReadShard } from './shard-memory.ts';
import { readShard as catalogReadShard, type ShardData } from '../catalog/reader.ts';

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

export interface KnnRequest {
  catalogs: string[];
  query: Uint8Array;
  k: number;
  threshold?: number;
}
export interface KnnManyRequest {
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
  stats(): SearchPoolStats;
  /** Stops all threads (pending searches reject with code 'unavailable') and frees the memories. */
  close(): Promise<void>;
}

interface Segment {
  catalog: string;
  shard: LoadedShard<ShardData>;
  rowStart: number;
  rowEnd: number;
  bound: number[];
}
interface Search {
  queries: PreparedQuery[];
  k: number;
  threshold?: number;
  segments: Segment[];
  inFlight: number;
  hits: Hit[][];
  resolve(h: Hit[][]): void;
  reject(e: unknown): void;
  failed: boolean;
}
interface Slot {
  worker: Worker;
  busy: boolean;
  task?: { search: Search; segment: Segment };
}

const workerUrl = new URL('./pool-worker.ts', import.meta.url);

/** Creates a pool of `threads` scan workers. Call close() to stop them. */
export function createSearchPool(opts: SearchPoolOptions = {}): SearchPool {
  const threads = Math.max(1, opts.threads ?? availableParallelism());
  const segmentRows = opts.segmentRows ?? 65536;
  const blockBound = opts.blockBound ?? true;
  const log = opts.log;
  const catalogs = new Map<string, { shards: LoadedShard<ShardData>[]; arenas: number[]; bytes: number }>();
  const queue: Search[] = [];
  const acks = new Map<number, { left: number; resolve(): void }>();
  let nextId = 1;
  let nextArena = 1;
  let searches = 0;
  let rowsScanned = 0;
  let rowsTouched = 0;
  let closed = false;

  const slots: Slot[] = Array.from({ length: threads }, (_, slot) => {
    const s: Slot = { worker: new Worker(workerUrl, { workerData: { slot, blockBound } }), busy: false };
    s.worker.on('message', (m: WorkerReply) => onReply(s, m));
    s.worker.on('error', (err) => onCrash(s, err));
    return s;
  });

  function onCrash(s: Slot, err: unknown): void {
    log?.error({ err }, 'search worker failed');
    if (s.task)
      failSearch(s.task.search, new DomainError('internal', 'search worker failed', { cause: err }));
    slots.splice(slots.indexOf(s), 1);
  }

  function failSearch(search: Search, err: unknown): void {
    if (search.failed) return;
    search.failed = true;
    const i = queue.indexOf(search);
    if (i >= 0) queue.splice(i, 1);
    search.reject(err);
  }

  function onReply(s: Slot, m: WorkerReply): void {
    if (m.t === 'ack') {
      const a = acks.get(m.id);
      if (a && --a.left === 0) {
        acks.delete(m.id);
        a.resolve();
      }
      return;
    }
    const task = s.task!;
    s.busy = false;
    s.task = undefined;
    const { search, segment } = task;
    search.inFlight--;
    if (m.t === 'error') failSearch(search, new DomainError('internal', m.message));
    else if (!search.failed) {
      rowsScanned += m.scanned;
      rowsTouched += m.touched;
      m.results.forEach((r, qi) => {
        const part = Array.from(r.rows, (row, j) => ({
          catalog: segment.catalog,
          shard: segment.shard.index,
          row,
          similarity: r.scores[j],
        }));
        search.hits[qi] = mergeHits(search.hits[qi], part, search.k);
      });
      if (search.segments.length === 0 && search.inFlight === 0) search.resolve(search.hits);
    }
    pump();
  }

  const floorOf = (search: Search, qi: number): number => {
    const h = search.hits[qi];
    return h.length >= search.k ? h[search.k - 1].similarity : -Infinity;
  };

  function nextTask(search: Search): Segment | undefined {
    const t32 = search.threshold === undefined ? -Infinity : Math.fround(search.threshold);
    while (search.segments.length) {
      const seg = search.segments.shift()!;
      if (seg.bound.some((b, qi) => b >= Math.max(t32, floorOf(search, qi)))) return seg;
    }
    return undefined;
  }

  function pump(): void {
    for (const s of slots) {
      if (s.busy) continue;
      let seg: Segment | undefined;
      let search: Search | undefined;
      while (queue.length && !seg) {
        search = queue[0];
        seg = nextTask(search);
        if (!search.segments.length) queue.shift();
        if (!seg && search.inFlight === 0 && !search.failed) search.resolve(search.hits);
      }
      if (!seg || !search) return;
      s.busy = true;
      s.task = { search, segment: seg };
      search.inFlight++;
      const msg: PoolMessage = {
        t: 'scan',
        id: nextId++,
        catalog: seg.catalog,
        shard: seg.shard.index,
        rowStart: seg.rowStart,
        rowEnd: seg.rowEnd,
        queries: search.queries,
        k: search.k,
        threshold: search.threshold,
        floors: search.queries.map((_, qi) => floorOf(search!, qi)),
      };
      s.worker.postMessage(msg);
    }
  }

  function broadcast(msg: PoolMessage): Promise<void> {
    return new Promise((resolve) => {
      acks.set(msg.id, { left: slots.length, resolve });
      for (const s of slots) s.worker.postMessage(msg);
    });
  }

  function run(
    catalogIds: string[],
    queries: PreparedQuery[],
    k: number,
    threshold?: number,
  ): Promise<Hit[][]> {
    if (closed) return Promise.reject(new DomainError('unavailable', 'search pool is closed'));
    if (!Number.isInteger(k) || k < 0)
      return Promise.reject(validationError(['k'], 'must be a non-negative integer'));
    if (threshold !== undefined && !(threshold >= 0 && threshold <= 1))
      return Promise.reject(validationError(['threshold'], 'must be between 0 and 1'));
    const segments: Segment[] = [];
    for (const id of catalogIds) {
      const cat = catalogs.get(id);
      if (!cat) return Promise.reject(notFound(`catalog ${id}`));
      for (const shard of cat.shards) {
        const pc = shard.data.popcounts;
        for (let s = 0; s < shard.ref.rows; s += segmentRows) {
          const e = Math.min(shard.ref.rows, s + segmentRows);
          segments.push({
            catalog: id,
            shard,
            rowStart: s,
            rowEnd: e,
            bound: queries.map((q) => maxBound(q.bounds, pc[s], pc[e - 1])),
          });
        }
      }
    }
    // Most promising segments first, so the k-th score rises early and later segments are skipped.
    segments.sort((x, y) => Math.max(...y.bound) - Math.max(...x.bound));
    searches++;
    return new Promise((resolve, reject) => {
      const search: Search = {
        queries,
        k,
        threshold,
        segments,
        inFlight: 0,
        hits: queries.map(() => []),
        resolve,
        reject,
        failed: false,
      };
      queue.push(search);
      pump();
    });
  }

  return {
    async loadCatalog(catalog) {
      if (closed) throw new DomainError('unavailable', 'search pool is closed');
      const id = catalog.manifest.id;
      if (catalogs.has(id)) return;
      const t0 = performance.now();
      const { arenas, shards } = loadCatalogArenas(
        catalog,
        opts.readShard ?? catalogReadShard,
        threads,
        nextArena,
      );
      nextArena += arenas.length;
      for (const a of arenas) await broadcast({ t: 'arena', id: nextId++, arena: a.id, memory: a.memory });
      const shardMsg = shards.map((s) => ({
        index: s.index,
        arena: s.arena,
        fpPtr: s.ref.fpPtr,
        pcPtr: s.ref.pcPtr,
        rows: s.ref.rows,
        offsets: s.ref.offsets,
        blkPtr: s.ref.blkPtr,
      }));
      await broadcast({ t: 'shards', id: nextId++, catalog: id, shards: shardMsg });
      catalogs.set(id, {
        shards,
        arenas: arenas.map((a) => a.id),
        bytes: arenas.reduce((n, a) => n + a.bytes, 0),
      });
      log?.info(
        {
          catalog: id,
          shards: shards.length,
          rows: shards.reduce((n, s) => n + s.ref.rows, 0),
          ms: Math.round(performance.now() - t0),
        },
        'loaded catalog into search pool',
      );
    },
    async unloadCatalog(id) {
      const cat = catalogs.get(id);
      if (!cat) return;
      catalogs.delete(id);
      await broadcast({ t: 'drop', id: nextId++, catalog: id, arenas: cat.arenas });
    },
    shard: (catalog, index) => catalogs.get(catalog)?.shards.find((s) => s.index === index)?.data,
    knn: async (req) => (await run(req.catalogs, [prepareTanimoto(req.query)], req.k, req.threshold))[0],
    knnMany: (req) =>
      run(
        req.catalogs,
        req.queries.map((q) => prepareTanimoto(q)),
        req.k,
        req.threshold,
      ),
    centroid: async (req) =>
      (await run(req.catalogs, [prepareCentroid(req.queries)], req.k, req.threshold))[0],
    stats: () => ({
      threads: slots.length,
      catalogs: [...catalogs.keys()],
      shards: [...catalogs.values()].reduce((n, c) => n + c.shards.length, 0),
      rows: [...catalogs.values()].reduce((n, c) => n + c.shards.reduce((m, s) => m + s.ref.rows, 0), 0),
      bytesLoaded: [...catalogs.values()].reduce((n, c) => n + c.bytes, 0),
      searches,
      rowsScanned,
      rowsTouched,
      busyThreads: slots.filter((s) => s.busy).length,
      queuedSearches: queue.length,
    }),
    async close() {
      if (closed) return;
      closed = true;
      for (const s of queue.splice(0)) failSearch(s, new DomainError('unavailable', 'search pool closed'));
      for (const s of slots)
        if (s.task) failSearch(s.task.search, new DomainError('unavailable', 'search pool closed'));
      await Promise.all(slots.map((s) => s.worker.terminate()));
      catalogs.clear();
    },
  };
}
