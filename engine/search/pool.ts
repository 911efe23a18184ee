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
import { DomainError } from '../../platform/errors.ts';
import { loadCatalogArenas, type LoadedShard } from './arena-load.ts';
import { prepareCentroid, prepareTanimoto } from './query.ts';
import type { PoolMessage, ScanReply } from './pool-protocol.ts';
import { createSearchScheduler } from './pool-scheduler.ts';
import type { SearchPool, SearchPoolOptions } from './pool-types.ts';
import { createThreadPool, type ThreadHandle } from '../threads/index.ts';
import { readShard as catalogReadShard, type ShardData } from '../catalog/reader.ts';

export type {
  CentroidRequest,
  KnnManyRequest,
  KnnRequest,
  SearchLimits,
  SearchPool,
  SearchPoolOptions,
  SearchPoolStats,
} from './pool-types.ts';

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
  let nextArena = 1;
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
  const scheduler = createSearchScheduler({
    threads,
    size,
    segmentRows,
    shardsOf: (id) => catalogs.get(id)?.shards,
  });
  const run: typeof scheduler.run = (...args) =>
    closed ? Promise.reject(new DomainError('unavailable', 'search pool is closed')) : scheduler.run(...args);

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
      const s = scheduler.stats();
      return {
        threads: t.threads,
        catalogs: [...catalogs.keys()],
        shards: [...catalogs.values()].reduce((n, c) => n + c.shards.length, 0),
        rows: [...catalogs.values()].reduce((n, c) => n + c.shards.reduce((m, s) => m + s.ref.rows, 0), 0),
        bytesLoaded: [...catalogs.values()].reduce((n, c) => n + c.bytes, 0),
        searches: s.searches,
        rowsScanned: s.rowsScanned,
        rowsTouched: s.rowsTouched,
        busyThreads: t.busy,
        queuedSearches: s.queuedSearches,
      };
    },
    async close() {
      if (closed) return;
      closed = true;
      await threads.close();
      scheduler.failAll(new DomainError('unavailable', 'search pool closed'));
      catalogs.clear();
      registry.clear();
    },
  };
}
