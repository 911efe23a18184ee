/**
 * The search pool: catalogs loaded once into shared kernel memories, scanned in parallel by the
 * threads of an engine thread pool (engine/threads). This file is the shared-memory layer on top:
 * every thread (and any replacement of a thread that died) is registered with every arena and
 * shard before it scans. The caller's event loop only splits work, dispatches and merges; every
 * row is scored on a thread. Results are exact and identical to a serial scan.
 *
 * No search can stall the others (issue 15): a search is a chain of segment tasks whose size
 * shrinks with the number of queries (a batch of 100 queries scans 100 times fewer rows per task),
 * a search's first task waits in a priority lane ('first') ahead of the continuations of running
 * searches ('more'), and a `deadline` (absolute, queue included) or an aborted `signal` withdraws
 * what is still queued and rejects the search (overloaded, 503) instead of scanning on.
 */
import { availableParallelism } from 'node:os';
import type { Logger } from '../../platform/logger.ts';
import { DomainError, notFound, validationError } from '../../platform/errors.ts';
import { maxBound } from './bitbound.ts';
import { loadCatalogArenas, type CatalogLike, type LoadedShard } from './arena-load.ts';
import { prepareCentroid, prepareTanimoto, type PreparedQuery } from './query.ts';
import { mergeHits, type Hit } from './topk.ts';
import type { PoolMessage, ScanReply } from './pool-protocol.ts';
import { createThreadPool, type ThreadHandle } from '../threads/index.ts';
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
  /** No task dispatched yet: the next one goes to the priority lane. */
  fresh: boolean;
  limits: SearchLimits;
  inFlight: number;
  hits: Hit[][];
  resolve(h: Hit[][]): void;
  reject(e: unknown): void;
  done: boolean;
}
interface LoadedCatalog {
  shards: LoadedShard<ShardData>[];
  arenas: number[];
  bytes: number;
  /** Registration messages, replayed to every thread that starts later. */
  messages: PoolMessage[];
}

const workerUrl = new URL('./pool-worker.ts', import.meta.url);

/** Creates a pool of `threads` scan threads (started at once). Call close() to stop them. */
export function createSearchPool(opts: SearchPoolOptions = {}): SearchPool {
  const size = Math.max(1, opts.threads ?? availableParallelism());
  const segmentRows = opts.segmentRows ?? 65536;
  const blockBound = opts.blockBound ?? true;
  const log = opts.log;
  /** Catalogs every thread knows (searchable). */
  const catalogs = new Map<string, LoadedCatalog>();
  /** Catalogs being registered, and registered ones: what a new thread must be sent. */
  const registry = new Map<string, LoadedCatalog>();
  const active = new Set<Search>();
  let nextArena = 1;
  let searches = 0;
  let rowsScanned = 0;
  let rowsTouched = 0;
  let closed = false;

  const threads = createThreadPool<PoolMessage, ScanReply | null>({
    name: 'search',
    script: workerUrl,
    size,
    // Each slot owns a scratch area in every arena; a replacement thread reuses its slot's.
    workerData: (slot) => ({ slot, blockBound }),
    respawnEagerly: true,
    lanes: ['first', 'more'],
    onSpawn: (t: ThreadHandle) =>
      Promise.all([...registry.values()].flatMap((c) => c.messages.map((m) => t.call(m)))).then(() => {}),
    errors: {
      closed: () => new DomainError('unavailable', 'search pool closed'),
      died: (cause) => new DomainError('internal', 'search worker failed', { cause }),
    },
    log,
  });
  const started = threads.start();
  started.catch((err) => log?.error({ err }, 'search threads failed to start'));

  const floorOf = (search: Search, qi: number): number => {
    const h = search.hits[qi];
    return h.length >= search.k ? h[search.k - 1].similarity : -Infinity;
  };

  /** The next segment that can still hold a hit above every query's floor (others are skipped). */
  function nextSegment(search: Search): Segment | undefined {
    const t32 = search.threshold === undefined ? -Infinity : Math.fround(search.threshold);
    while (search.segments.length) {
      const seg = search.segments.shift()!;
      if (seg.bound.some((b, qi) => b >= Math.max(t32, floorOf(search, qi)))) return seg;
    }
    return undefined;
  }

  function finish(search: Search, err?: unknown): void {
    if (search.done) return;
    search.done = true;
    active.delete(search);
    if (err === undefined) search.resolve(search.hits);
    else
      search.reject(
        err instanceof DomainError ? err : new DomainError('internal', String((err as Error).message ?? err)),
      );
  }

  /**
   * Keeps at most one segment per thread in flight for a search; the scan message is built when
   * a thread takes it, so its floors are the best known then (the k-th score rises as segments
   * come back, and later segments prune more).
   */
  function dispatch(search: Search): void {
    while (!search.done && search.inFlight < size) {
      const seg = nextSegment(search);
      if (!seg) break;
      search.inFlight++;
      const lane = search.fresh ? 'first' : 'more';
      search.fresh = false;
      threads
        .run(
          () => ({
            t: 'scan',
            catalog: seg.catalog,
            shard: seg.shard.index,
            rowStart: seg.rowStart,
            rowEnd: seg.rowEnd,
            queries: search.queries,
            k: search.k,
            threshold: search.threshold,
            floors: search.queries.map((_, qi) => floorOf(search, qi)),
          }),
          { lane, deadline: search.limits.deadline, signal: search.limits.signal },
        )
        .then(
          (reply) => {
            search.inFlight--;
            if (search.done || !reply) return;
            rowsScanned += reply.scanned;
            rowsTouched += reply.touched;
            reply.results.forEach((r, qi) => {
              const part = Array.from(r.rows, (row, j) => ({
                catalog: seg.catalog,
                shard: seg.shard.index,
                row,
                similarity: r.scores[j],
              }));
              search.hits[qi] = mergeHits(search.hits[qi], part, search.k);
            });
            dispatch(search);
          },
          (err) => {
            search.inFlight--;
            finish(search, err);
          },
        );
    }
    if (!search.done && search.inFlight === 0 && !search.segments.length) finish(search);
  }

  /** Fails a search at its deadline or when its signal aborts, even between tasks. */
  function watchLimits(search: Search): void {
    const { deadline, signal } = search.limits;
    const timer =
      deadline === undefined
        ? undefined
        : setTimeout(
            () =>
              finish(
                search,
                new DomainError('overloaded', 'the search ran past its deadline; retry shortly', {
                  retryAfterSeconds: 1,
                }),
              ),
            Math.max(0, deadline - Date.now()),
          );
    const onAbort = () => finish(search, signal!.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    const { resolve, reject } = search;
    const clear = () => (clearTimeout(timer), signal?.removeEventListener('abort', onAbort));
    search.resolve = (h) => (clear(), resolve(h));
    search.reject = (e) => (clear(), reject(e));
  }

  function run(
    catalogIds: string[],
    queries: PreparedQuery[],
    k: number,
    threshold: number | undefined,
    limits: SearchLimits,
  ): Promise<Hit[][]> {
    if (closed) return Promise.reject(new DomainError('unavailable', 'search pool is closed'));
    if (!Number.isInteger(k) || k < 0)
      return Promise.reject(validationError(['k'], 'must be a non-negative integer'));
    if (threshold !== undefined && !(threshold >= 0 && threshold <= 1))
      return Promise.reject(validationError(['threshold'], 'must be between 0 and 1'));
    const segments: Segment[] = [];
    // A task scores rows × queries; keep that about constant so one task of a batch is as short
    // as one of a single query (multiples of 1,024 rows keep the kernels' block alignment).
    const rowsPerTask =
      queries.length > 1
        ? Math.max(1024, Math.floor(segmentRows / queries.length / 1024) * 1024)
        : segmentRows;
    for (const id of catalogIds) {
      const cat = catalogs.get(id);
      if (!cat) return Promise.reject(notFound(`catalog ${id}`));
      for (const shard of cat.shards) {
        const pc = shard.data.popcounts;
        for (let s = 0; s < shard.ref.rows; s += rowsPerTask) {
          const e = Math.min(shard.ref.rows, s + rowsPerTask);
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
        fresh: true,
        limits,
        inFlight: 0,
        hits: queries.map(() => []),
        resolve,
        reject,
        done: false,
      };
      active.add(search);
      watchLimits(search);
      dispatch(search);
    });
  }

  return {
    async loadCatalog(catalog) {
      if (closed) throw new DomainError('unavailable', 'search pool is closed');
      const id = catalog.manifest.id;
      if (catalogs.has(id) || registry.has(id)) return;
      await started;
      const t0 = performance.now();
      const { arenas, shards } = loadCatalogArenas(
        catalog,
        opts.readShard ?? catalogReadShard,
        size,
        nextArena,
      );
      nextArena += arenas.length;
      const messages: PoolMessage[] = [
        ...arenas.map((a): PoolMessage => ({ t: 'arena', arena: a.id, memory: a.memory })),
        {
          t: 'shards',
          catalog: id,
          shards: shards.map((s) => ({
            index: s.index,
            arena: s.arena,
            fpPtr: s.ref.fpPtr,
            pcPtr: s.ref.pcPtr,
            rows: s.ref.rows,
            offsets: s.ref.offsets,
            blkPtr: s.ref.blkPtr,
          })),
        },
      ];
      const entry: LoadedCatalog = {
        shards,
        arenas: arenas.map((a) => a.id),
        bytes: arenas.reduce((n, a) => n + a.bytes, 0),
        messages,
      };
      // Registered before the broadcast: a thread starting meanwhile gets it from onSpawn.
      registry.set(id, entry);
      for (const m of messages) await threads.broadcast(m);
      catalogs.set(id, entry);
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
      registry.delete(id);
      await threads.broadcast({ t: 'drop', catalog: id, arenas: cat.arenas });
    },
    shard: (catalog, index) => catalogs.get(catalog)?.shards.find((s) => s.index === index)?.data,
    knn: async (req) => (await run(req.catalogs, [prepareTanimoto(req.query)], req.k, req.threshold, req))[0],
    knnMany: (req) =>
      run(
        req.catalogs,
        req.queries.map((q) => prepareTanimoto(q)),
        req.k,
        req.threshold,
        req,
      ),
    centroid: async (req) =>
      (await run(req.catalogs, [prepareCentroid(req.queries)], req.k, req.threshold, req))[0],
    knnPrepared: async (req) => (await run(req.catalogs, [req.query], req.k, undefined, req))[0],
    stats: () => {
      const t = threads.stats();
      return {
        threads: t.threads,
        catalogs: [...catalogs.keys()],
        shards: [...catalogs.values()].reduce((n, c) => n + c.shards.length, 0),
        rows: [...catalogs.values()].reduce((n, c) => n + c.shards.reduce((m, s) => m + s.ref.rows, 0), 0),
        bytesLoaded: [...catalogs.values()].reduce((n, c) => n + c.bytes, 0),
        searches,
        rowsScanned,
        rowsTouched,
        busyThreads: t.busy,
        queuedSearches: [...active].filter((s) => s.segments.length > 0).length,
      };
    },
    async close() {
      if (closed) return;
      closed = true;
      await threads.close();
      for (const s of [...active]) finish(s, new DomainError('unavailable', 'search pool closed'));
      catalogs.clear();
      registry.clear();
    },
  };
}
