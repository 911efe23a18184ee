/**
 * The engine's one worker-thread pool. Every CPU-heavy capability (search scans, selections,
 * ADMET, filters, substructure, catalog builds) runs on it, so spawning, request ids, queueing,
 * failing the work of a thread that dies (and replacing the thread), and close() live here once.
 *
 * - A pool has `size` slots; a slot's thread starts on first use (or all at once with start()),
 *   and a thread that dies is replaced in the same slot (`index` stays, so per-slot resources
 *   such as a scratch area in shared memory carry over).
 * - Each thread runs one queued request at a time. Requests wait in named lanes, served in the
 *   order of `lanes` (first = highest priority); FIFO within a lane.
 * - `onSpawn(thread)` runs for every new thread before it takes queued work: a pool whose threads
 *   share state (the search pool's kernel memories) registers it there, and `broadcast()` sends
 *   later additions to every live thread.
 * - A request may be a function of the thread it is dispatched to, called at dispatch time: it
 *   can send bulky context once per thread (`thread.seen`) or read state that changed while the
 *   request was queued.
 * - A lane may be limited to fewer threads than the pool has (`laneLimits`), so expensive work
 *   never occupies every thread and a cheap request always finds one within one slice or task.
 * - An AbortSignal withdraws a request that is still queued (and, with `stopOnAbort`, stops
 *   one that runs by terminating its thread, like an overdue one). A `deadline` covers the request's
 *   whole life: still queued at the deadline, it is withdrawn (errors.timedOut); still running, it
 *   is stopped by terminating its thread when the pool has `terminateOverdue` (the slot's thread
 *   is replaced; a thread can only be stopped by terminating it, see engine/README.md), or else
 *   answered late.
 */
import { Worker, type TransferListItem } from 'node:worker_threads';
import { poolErrors } from './errors.ts';
import { createLaneQueues } from './lanes.ts';
import { probeMemory, registerPool, unregisterPool, type Pending } from './memory.ts';
import { deserializeError, type RequestEnvelope, type ThreadEnvelope } from './protocol.ts';
import type { ThreadHandle, ThreadMemory, ThreadPool, ThreadPoolOptions } from './types.ts';

export { threadPoolsMemory } from './memory.ts';

export type {
  RunOptions,
  ThreadHandle,
  ThreadMemory,
  ThreadPool,
  ThreadPoolOptions,
  ThreadPoolStats,
} from './types.ts';

interface Task<Req> extends Pending {
  request: Req | ((thread: ThreadHandle) => Req);
  lane: string;
  transfer?: TransferListItem[];
  /** Stops listening for the abort signal (the task left its queue). */
  detach(): void;
  /** The thread running it, once dispatched. */
  thread?: Thread<Req>;
}
interface Thread<Req> extends ThreadHandle {
  worker: Worker;
  task?: Task<Req> & { id: number; origin: Task<Req> };
  calls: Map<number, Pending>;
  /** onSpawn has not finished: the thread takes no queued work yet. */
  starting: boolean;
  ready: Promise<unknown>;
  wasReady: boolean;
  dead: boolean;
}

/** Creates a pool; no thread starts before the first run() or start(). */
export function createThreadPool<Req, Res>(opts: ThreadPoolOptions): ThreadPool<Req, Res> {
  const size = Math.max(1, Math.floor(opts.size));
  const queues = createLaneQueues<Task<Req>>(opts.lanes, opts.laneLimits);
  const slots: (Thread<Req> | undefined)[] = new Array(size).fill(undefined);
  const {
    closed: closedError,
    died: diedError,
    timedOut: timedOutError,
    overloaded: overloadedError,
  } = poolErrors(opts);
  let nextId = 1;
  let completed = 0;
  let died = 0;
  let closed = false;

  const queued = () => queues.size();
  const live = () => slots.filter((t): t is Thread<Req> => t !== undefined);

  function spawn(index: number): Thread<Req> {
    const worker = new Worker(opts.script, { workerData: opts.workerData?.(index) });
    if (opts.unrefIdle) worker.unref();
    let settleReady!: Pending;
    const t: Thread<Req> = {
      index,
      seen: new Set(),
      worker,
      calls: new Map(),
      starting: false,
      ready: new Promise((resolve, reject) => (settleReady = { resolve, reject })),
      wasReady: false,
      dead: false,
      call: (request, transfer) =>
        new Promise((resolve, reject) => {
          if (t.dead) return reject(closed ? closedError() : diedError(new Error('thread is gone')));
          const id = nextId++;
          t.calls.set(id, { resolve: resolve as (v: unknown) => void, reject });
          worker.postMessage({ id, body: request } satisfies RequestEnvelope, transfer);
        }),
    };
    t.ready.catch(() => undefined); // observed by start() when asked for; a dead thread's work fails anyway
    slots[index] = t;
    worker.on('message', (m: ThreadEnvelope<Res>) => {
      if (m.t === 'ready') {
        t.wasReady = true;
        settleReady.resolve(m.info);
      } else if (m.t === 'failed') {
        // Setup failed (models missing, ...): every queued request would fail the same way.
        const err = deserializeError(m.error, `a ${opts.name} thread`);
        settleReady.reject(err);
        for (const task of drainQueues()) task.reject(err);
        kill(t, err);
      } else onReply(t, m);
    });
    worker.on('error', (err) => die(t, err, settleReady));
    worker.on('exit', (code) =>
      die(t, new Error(`${opts.name} thread exited with code ${code}`), settleReady),
    );
    if (opts.onSpawn) {
      t.starting = true;
      Promise.resolve()
        .then(() => opts.onSpawn!(t))
        .then(
          () => {
            t.starting = false;
            pump();
          },
          (err) => {
            // Registration failed: the pool cannot serve; fail what waits rather than retry forever.
            for (const task of drainQueues()) task.reject(err);
            kill(t, err);
          },
        );
    }
    return t;
  }

  function onReply(t: Thread<Req>, m: Extract<ThreadEnvelope<Res>, { t: 'reply' }>): void {
    const call = t.calls.get(m.id);
    const pending = call ?? (t.task?.id === m.id ? t.task : undefined);
    if (!pending) return;
    if (call) t.calls.delete(m.id);
    else {
      t.task = undefined;
      completed++;
      if (opts.unrefIdle) t.worker.unref();
    }
    if (m.ok) pending.resolve(m.value);
    else pending.reject(deserializeError(m.error, `a ${opts.name} thread`));
    // The thread's WebAssembly trapped (thread.ts): no more work goes to it; a new one takes its slot.
    if (!m.ok && m.retire) kill(t, diedError(new Error(`${opts.name} thread retired after a trap`)));
    if (!call || (!m.ok && m.retire)) pump();
  }

  /** Fails a thread's work with `err`, then terminates it (the exit is then ignored). */
  function kill(t: Thread<Req>, err: unknown): void {
    if (t.dead) return;
    fail(t, err);
    void t.worker.terminate();
  }

  function die(t: Thread<Req>, cause: unknown, ready: Pending): void {
    if (t.dead) return;
    const err = closed ? closedError() : diedError(cause);
    ready.reject(err);
    if (!closed) {
      died++;
      opts.log?.error({ err: cause, pool: opts.name, slot: t.index }, 'worker thread died');
    }
    fail(t, err);
    if (!closed && t.wasReady && opts.respawnEagerly) spawn(t.index);
    pump();
  }

  function fail(t: Thread<Req>, err: unknown): void {
    t.dead = true;
    if (slots[t.index] === t) slots[t.index] = undefined;
    t.task?.reject(err);
    t.task = undefined;
    for (const c of t.calls.values()) c.reject(err);
    t.calls.clear();
  }

  const drainQueues = () => queues.drain();
  const runningIn = (lane: string) => live().filter((t) => t.task?.lane === lane).length;

  function freeThread(): Thread<Req> | undefined {
    const idle = live().find((t) => !t.task && !t.starting && !t.dead);
    if (idle) return idle;
    const empty = slots.findIndex((t) => t === undefined);
    if (empty < 0) return undefined;
    const t = spawn(empty);
    return t.starting ? undefined : t;
  }

  function pump(): void {
    while (!closed && queued() > 0) {
      const t = freeThread();
      if (!t) return;
      const task = queues.next(runningIn);
      if (!task) return; // what waits is in lanes at their thread limit
      task.detach();
      let body: Req;
      try {
        body =
          typeof task.request === 'function'
            ? (task.request as (th: ThreadHandle) => Req)(t)
            : (task.request as Req);
      } catch (err) {
        task.reject(err);
        continue;
      }
      const id = nextId++;
      t.task = { ...task, id, origin: task };
      task.thread = t;
      if (opts.unrefIdle) t.worker.ref();
      t.worker.postMessage({ id, body } satisfies RequestEnvelope<Req>, task.transfer);
    }
  }

  function onDeadline(task: Task<Req>): void {
    const q = queues.get(task.lane)!;
    const i = q.indexOf(task);
    if (i >= 0) {
      q.splice(i, 1);
      task.detach();
      return task.reject(timedOutError(true));
    }
    const t = task.thread;
    if (!t || t.task?.origin !== task || !opts.terminateOverdue) return; // answered, or answered late
    opts.log?.warn({ pool: opts.name, slot: t.index }, 'stopping a request that ran past its deadline');
    kill(t, timedOutError(false));
    pump();
  }

  const pool: ThreadPool<Req, Res> = {
    run(request, ro = {}) {
      if (closed) return Promise.reject(closedError());
      const lane = ro.lane ?? queues.lanes[0];
      const q = queues.get(lane);
      if (!q) return Promise.reject(new RangeError(`${opts.name} pool has no lane ${JSON.stringify(lane)}`));
      const waiting = queued();
      if (opts.maxQueue !== undefined && waiting >= opts.maxQueue)
        return Promise.reject(overloadedError(waiting));
      if (ro.signal?.aborted) return Promise.reject(ro.signal.reason);
      if (ro.deadline !== undefined && ro.deadline <= Date.now()) return Promise.reject(timedOutError(true));
      return new Promise<Res>((resolve, reject) => {
        let timer: ReturnType<typeof setTimeout> | undefined;
        const settle =
          <A>(f: (a: A) => void) =>
          (a: A) => {
            clearTimeout(timer);
            ro.signal?.removeEventListener('abort', onAbort);
            f(a);
          };
        const onAbort = () => {
          const i = q.indexOf(task);
          if (i >= 0) {
            q.splice(i, 1);
            return task.reject(ro.signal!.reason);
          }
          // Running and asked to (a cancelled activity whose worker shuts down): stop it; its
          // thread is replaced.
          const t = task.thread;
          if (t && t.task?.origin === task) {
            opts.log?.warn({ pool: opts.name, slot: t.index }, 'stopping an aborted request');
            kill(t, ro.signal!.reason);
            return pump();
          }
          task.reject(ro.signal!.reason);
        };
        const task: Task<Req> = {
          request,
          lane,
          transfer: ro.transfer,
          resolve: settle(resolve as (v: unknown) => void),
          reject: settle(reject),
          // Leaving the queue: a stoppable request keeps listening until it is answered.
          detach: () => {
            if (!ro.stopOnAbort) ro.signal?.removeEventListener('abort', onAbort);
          },
        };
        if (ro.deadline !== undefined)
          timer = setTimeout(() => onDeadline(task), Math.max(0, ro.deadline - Date.now()));
        ro.signal?.addEventListener('abort', onAbort, { once: true });
        q.push(task);
        pump();
      });
    },
    async broadcast(request, transfer) {
      await Promise.all(live().map((t) => t.call(request, transfer)));
    },
    start() {
      if (closed) return Promise.reject(closedError());
      for (let i = 0; i < size; i++) if (!slots[i]) spawn(i);
      return Promise.all(live().map((t) => t.ready));
    },
    async memory() {
      const ready = live().filter((t) => t.wasReady && !t.dead);
      return (await Promise.all(ready.map((t) => probeMemory(t, nextId++, opts.name)))).filter(
        (m): m is ThreadMemory => m !== undefined,
      );
    },
    stats: () => ({
      size,
      threads: live().length,
      busy: live().filter((t) => t.task).length,
      queued: queued(),
      completed,
      died,
    }),
    async close() {
      if (closed) return;
      closed = true;
      unregisterPool(pool as ThreadPool<unknown, unknown>);
      const err = closedError();
      for (const task of drainQueues()) task.reject(err);
      await Promise.all(live().map((t) => t.worker.terminate()));
    },
  };
  registerPool(pool as ThreadPool<unknown, unknown>);
  return pool;
}
