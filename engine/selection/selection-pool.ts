/**
 * The selection pool: a few worker threads (started on first use) that execute normalized
 * selections off the caller's event loop. Each thread opens the libraries it is asked for itself,
 * from a serialisable LibrarySource (a catalog directory, loaded into WebAssembly kernel memory
 * for exact masked k-NN; or in-memory molecules), and keeps them for later selections.
 */
import { Worker } from 'node:worker_threads';
import { DomainError } from '../../platform/errors.ts';
import type { Logger } from '../../platform/logger.ts';
import { executeSelection, type SelectionOutcome } from './execute.ts';
import type { Library, LibrarySource } from './library.ts';
import { deserializeError, type ExecuteMessage, type SelectionReply } from './selection-protocol.ts';
import type { NormalizedSelection } from './spec.ts';

export interface SelectionPoolOptions {
  /** Worker threads (default 1: each thread holds its own copy of every library it serves). */
  threads?: number;
  /** Selections waiting for a thread beyond which execute() rejects with 'overloaded' (default 64). */
  maxQueue?: number;
  log?: Logger;
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
  execute(source: LibrarySource, selection: NormalizedSelection): Promise<SelectionOutcome>;
  stats(): SelectionPoolStats;
  /** Stops the threads; pending selections reject with 'unavailable'. Idempotent. */
  close(): Promise<void>;
}

interface Task {
  id: number;
  key: string;
  source: LibrarySource;
  selection: NormalizedSelection;
  resolve(o: SelectionOutcome): void;
  reject(e: unknown): void;
}
interface Thread {
  worker: Worker;
  known: Set<string>;
  task?: Task;
}

const workerUrl = new URL('./selection-worker.ts', import.meta.url);

/** Creates a selection pool; no thread starts until the first execute(). Call close() to stop it. */
export function createSelectionPool(opts: SelectionPoolOptions = {}): SelectionPool {
  const size = Math.max(1, opts.threads ?? 1);
  const maxQueue = opts.maxQueue ?? 64;
  const threads: Thread[] = [];
  const queue: Task[] = [];
  const memoryKeys = new WeakMap<object, string>();
  let nextId = 1;
  let nextMemory = 1;
  let executed = 0;
  let closed = false;

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

  function spawn(): Thread {
    const t: Thread = { worker: new Worker(workerUrl), known: new Set() };
    t.worker.unref(); // idle threads never keep the process alive; a running task refs it
    t.worker.on('message', (m: SelectionReply) => {
      const task = t.task;
      if (!task || task.id !== m.id) return;
      t.task = undefined;
      t.worker.unref();
      executed++;
      if (m.t === 'done') task.resolve(m.outcome);
      else task.reject(deserializeError(m.error));
      pump();
    });
    const die = (err: unknown) => {
      const i = threads.indexOf(t);
      if (i < 0) return;
      threads.splice(i, 1);
      if (!closed) opts.log?.error({ err }, 'selection thread failed');
      t.task?.reject(
        closed
          ? new DomainError('unavailable', 'selection pool closed')
          : new DomainError('internal', 'selection thread failed', { cause: err }),
      );
      t.task = undefined;
      if (!closed) pump();
    };
    t.worker.on('error', die);
    t.worker.on('exit', (code) => die(new Error(`selection thread exited with code ${code}`)));
    threads.push(t);
    return t;
  }

  function pump(): void {
    while (queue.length && !closed) {
      const t = threads.find((x) => !x.task) ?? (threads.length < size ? spawn() : undefined);
      if (!t) return;
      const task = queue.shift()!;
      t.task = task;
      t.worker.ref();
      const msg: ExecuteMessage = { t: 'execute', id: task.id, key: task.key, selection: task.selection };
      if (!t.known.has(task.key)) {
        msg.source = task.source;
        t.known.add(task.key);
      }
      t.worker.postMessage(msg);
    }
  }

  return {
    execute(source, selection) {
      if (closed) return Promise.reject(new DomainError('unavailable', 'selection pool is closed'));
      if (queue.length >= maxQueue)
        return Promise.reject(
          new DomainError(
            'overloaded',
            `${queue.length} selections are waiting; retry shortly or submit a run (POST /api/v2/runs)`,
            { retryAfterSeconds: 1 },
          ),
        );
      return new Promise<SelectionOutcome>((resolve, reject) => {
        queue.push({ id: nextId++, key: keyOf(source), source, selection, resolve, reject });
        pump();
      });
    },
    stats: () => ({
      threads: threads.length,
      busy: threads.filter((t) => t.task).length,
      queued: queue.length,
      executed,
    }),
    async close() {
      if (closed) return;
      closed = true;
      for (const task of queue.splice(0))
        task.reject(new DomainError('unavailable', 'selection pool closed'));
      await Promise.all([...threads].map((t) => t.worker.terminate()));
    },
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
): Promise<SelectionOutcome> {
  return pool && lib.source ? pool.execute(lib.source, selection) : executeSelection(lib, selection);
}
