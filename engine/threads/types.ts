/** The contract of the engine's thread pool (engine/threads/pool.ts); see engine/README.md. */
import type { TransferListItem } from 'node:worker_threads';
import type { Logger } from '../../platform/logger.ts';
import type { IsolateMemory } from '../../platform/memory.ts';

/** What one thread of a pool holds (engine/threads/memory.ts). */
export interface ThreadMemory extends IsolateMemory {
  pool: string;
  slot: number;
}

export interface ThreadHandle {
  /** Slot number, 0..size-1; a replacement of a dead thread takes over its slot. */
  readonly index: number;
  /** Keys of context this thread instance was sent (empty in every new thread). */
  readonly seen: Set<string>;
  /** Sends a request to this very thread, outside the queue (registration, per-thread setup). */
  call<R = unknown>(request: unknown, transfer?: TransferListItem[]): Promise<R>;
}

export interface ThreadPoolOptions {
  /** Names the pool in errors and logs ("search", "selection", ...). */
  name: string;
  /** The worker-thread entry file; it calls serveThread() (engine/threads/thread.ts). */
  script: URL;
  /** Threads at most (at least 1). */
  size: number;
  /** `workerData` of the thread in slot `index`. */
  workerData?: (index: number) => unknown;
  /** Queues in priority order (default ['default']). */
  lanes?: readonly string[];
  /** Most threads that may run requests of a lane at once (a lane not named: all of them). */
  laneLimits?: Record<string, number>;
  /** A request running past its `deadline` is stopped by terminating its thread (then replaced). */
  terminateOverdue?: boolean;
  /** Requests waiting (all lanes) beyond which run() rejects with errors.overloaded (default unbounded). */
  maxQueue?: number;
  /** Idle threads do not keep the process alive (a thread with work does). */
  unrefIdle?: boolean;
  /** Replace a thread that died after it was ready at once, not on the next request. */
  respawnEagerly?: boolean;
  /** Runs for every new thread before it takes queued work (per-thread registration). */
  onSpawn?: (thread: ThreadHandle) => void | Promise<void>;
  errors?: {
    /** Rejects requests after close() and those pending at close() (default unavailable). */
    closed?: () => Error;
    /** Rejects the work of a thread that died (default internal). */
    died?: (cause: unknown) => Error;
    /** Rejects a request past its deadline, still queued or stopped running (default overloaded). */
    timedOut?: (queued: boolean) => Error;
    /** Rejects run() when maxQueue requests wait (default overloaded, retry after 1 s). */
    overloaded?: (queued: number) => Error;
  };
  log?: Logger;
}

export interface RunOptions {
  /** One of the pool's lanes (default: the first). */
  lane?: string;
  /** Buffers moved to the thread instead of copied. */
  transfer?: TransferListItem[];
  /** Aborting withdraws the request while it is queued (it rejects with the signal's reason). */
  signal?: AbortSignal;
  /**
   * Aborting also stops the request while it runs, by terminating its thread (then replaced):
   * for long work nobody will read, such as a cancelled activity's on a worker shutting down.
   */
  stopOnAbort?: boolean;
  /** Date.now() ms by which the request must be answered, queue included (see ThreadPoolOptions.terminateOverdue). */
  deadline?: number;
}

export interface ThreadPoolStats {
  size: number;
  /** Threads alive now. */
  threads: number;
  /** Threads running a queued request. */
  busy: number;
  /** Requests waiting, all lanes. */
  queued: number;
  /** Requests answered (resolved or rejected by the thread). */
  completed: number;
  /** Threads that died and were (or will be) replaced. */
  died: number;
}

export interface ThreadPool<Req, Res> {
  /** Queues a request (or a function building it for the thread it lands on); resolves with the reply. */
  run(request: Req | ((thread: ThreadHandle) => Req), opts?: RunOptions): Promise<Res>;
  /** Sends a request to every live thread, outside the queue; resolves when all answered. */
  broadcast(request: unknown, transfer?: TransferListItem[]): Promise<void>;
  /** Starts every slot's thread; resolves with each thread's ready info, rejects with a setup error. */
  start(): Promise<unknown[]>;
  stats(): ThreadPoolStats;
  /** What each ready thread holds now (V8 heap, external, WASM memories); a thread that does not answer within 5 s is left out. */
  memory(): Promise<ThreadMemory[]>;
  /** Stops every thread; queued and running requests reject with errors.closed. Idempotent. */
  close(): Promise<void>;
}
