/**
 * Search scheduling for the search pool (engine/search/pool.ts): a search is split into segment
 * tasks sized by its number of queries, ordered by their best possible score, dispatched at most
 * one per thread at a time through the 'first'/'more' lanes, pruned by the running k-th score,
 * and failed at its deadline or on abort (issue 15).
 */
import { DomainError, notFound, validationError } from '../../platform/errors.ts';
import type { ThreadPool } from '../threads/index.ts';
import type { ShardData } from '../catalog/reader.ts';
import type { LoadedShard } from './arena-load.ts';
import { maxBound } from './bitbound.ts';
import type { PoolMessage, ScanReply } from './pool-protocol.ts';
import type { SearchLimits } from './pool-types.ts';
import type { PreparedQuery } from './query.ts';
import { mergeHits, type Hit } from './topk.ts';

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

export interface SearchSchedulerOptions {
  threads: ThreadPool<PoolMessage, ScanReply | null>;
  /** Threads of the pool: a search keeps at most this many segments in flight. */
  size: number;
  segmentRows: number;
  /** The loaded shards of a searchable catalog, undefined when it is not loaded. */
  shardsOf(catalog: string): LoadedShard<ShardData>[] | undefined;
}

export interface SearchScheduler {
  run(
    catalogIds: string[],
    queries: PreparedQuery[],
    k: number,
    threshold: number | undefined,
    limits: SearchLimits,
  ): Promise<Hit[][]>;
  /** Rejects every running search with `err` (pool closed). */
  failAll(err: unknown): void;
  stats(): { searches: number; rowsScanned: number; rowsTouched: number; queuedSearches: number };
}

export function createSearchScheduler(opts: SearchSchedulerOptions): SearchScheduler {
  const { threads, size, segmentRows } = opts;
  const active = new Set<Search>();
  let searches = 0;
  let rowsScanned = 0;
  let rowsTouched = 0;

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
      const shards = opts.shardsOf(id);
      if (!shards) return Promise.reject(notFound(`catalog ${id}`));
      for (const shard of shards) {
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
    run,
    failAll: (err) => {
      for (const s of [...active]) finish(s, err);
    },
    stats: () => ({
      searches,
      rowsScanned,
      rowsTouched,
      queuedSearches: [...active].filter((s) => s.segments.length > 0).length,
    }),
  };
}
