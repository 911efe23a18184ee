/**
 * The selection pool: a few worker threads (started on first use) that execute normalized
 * selections off the caller's event loop. Each thread opens the libraries it is asked for itself,
 * from a serialisable LibrarySource (a catalog directory, loaded into WebAssembly kernel memory
 * for exact masked k-NN; or in-memory molecules), and keeps them for later selections.
 */
import { DomainError } from '../../platform/errors.ts';
import type { Logger } from '../../platform/logger.ts';
import { executeSelection, type ExternalObjectiveScores, type SelectionOutcome } from './execute.ts';
import type { Library, LibrarySource } from './library.ts';
import type { ExecuteMessage } from './selection-protocol.ts';
import { createThreadPool } from '../threads/index.ts';
import type { NormalizedSelection } from './spec.ts';

export interface SelectionPoolOptions {
  /** Worker threads (default 1: each thread holds its own copy of every library it serves). */
  threads?: number;
  /** Selections waiting for a thread beyond which execute() rejects with 'overloaded' (default 64). */
  maxQueue?: number;
  log?: Logger;
}

/**
 * How a selection waits for a thread (issue 15): a synchronous request's selection (`interactive`)
 * goes ahead of run items (`batch`, the default), and its deadline (queue included) or client
 * going away withdraws it while queued (`overloaded` / the signal's reason).
 */
export interface SelectionRunOptions {
  lane?: 'interactive' | 'batch';
  deadline?: number;
  signal?: AbortSignal;
}

export interface SelectionPoolStats {
  threads: number;
  busy: number;
  queued: number;
  executed: number;
}

export interface SelectionPool {
  /**
   * Runs executeSelection(library opened from `source`, `selection`) on a pool thread. Resolves
   * with the same outcome; rejects with the same DomainError (code, message, issues) the in-thread
   * call would throw, with DomainError('overloaded') when the queue is full, DomainError('unavailable')
   * after close(), and DomainError('internal') when the thread dies.
   */
  execute(
    source: LibrarySource,
    selection: NormalizedSelection,
    external?: ExternalObjectiveScores,
    opts?: SelectionRunOptions,
  ): Promise<SelectionOutcome>;
  stats(): SelectionPoolStats;
  /** Stops the threads; pending selections reject with 'unavailable'. Idempotent. */
  close(): Promise<void>;
}

const workerUrl = new URL('./selection-worker.ts', import.meta.url);

/** Creates a selection pool; no thread starts until the first execute(). Call close() to stop it. */
export function createSelectionPool(opts: SelectionPoolOptions = {}): SelectionPool {
  const maxQueue = opts.maxQueue ?? 64;
  const memoryKeys = new WeakMap<object, string>();
  let nextMemory = 1;
  const threads = createThreadPool<ExecuteMessage, SelectionOutcome>({
    name: 'selection',
    script: workerUrl,
    size: Math.max(1, opts.threads ?? 1),
    lanes: ['interactive', 'batch'],
    maxQueue,
    unrefIdle: true, // idle threads never keep the process alive; a running selection does
    errors: {
      closed: () => new DomainError('unavailable', 'selection pool closed'),
      died: (cause) => new DomainError('internal', 'selection thread failed', { cause }),
      overloaded: (queued) =>
        new DomainError(
          'overloaded',
          `${queued} selections are waiting; retry shortly or submit a run (POST /api/v2/runs)`,
          { retryAfterSeconds: 1 },
        ),
    },
    log: opts.log,
  });

  // A catalog is named by its directory; an in-memory library by the identity of its descriptor.
  const keyOf = (source: LibrarySource): string => {
    if (source.kind === 'catalog') return `catalog:${source.dir}`;
    let key = memoryKeys.get(source);
    if (!key)
      memoryKeys.set(
        source,
        (key = `memory:${source.info.database_id}@${source.info.release}#${nextMemory++}`),
      );
    return key;
  };

  return {
    execute(source, selection, external, ro = {}) {
      const key = keyOf(source);
      // The source (a catalog directory, or in-memory molecules) goes to each thread once.
      return threads.run(
        (t) => {
          const msg: ExecuteMessage = { key, selection, ...(external ? { external } : {}) };
          if (!t.seen.has(key)) {
            msg.source = source;
            t.seen.add(key);
          }
          return msg;
        },
        { lane: ro.lane ?? 'batch', deadline: ro.deadline, signal: ro.signal },
      );
    },
    stats: () => {
      const s = threads.stats();
      return { threads: s.threads, busy: s.busy, queued: s.queued, executed: s.completed };
    },
    close: () => threads.close(),
  };
}

/**
 * Executes `selection` over `lib` on the pool when there is one and the library can be reopened
 * in a thread (it has a source); otherwise in this thread. Same outcome and errors either way.
 */
export function executeSelectionIn(
  pool: SelectionPool | undefined,
  lib: Library,
  selection: NormalizedSelection,
  external?: ExternalObjectiveScores,
  opts?: SelectionRunOptions,
): Promise<SelectionOutcome> {
  return pool && lib.source
    ? pool.execute(lib.source, selection, external, opts)
    : executeSelection(lib, selection, external);
}
