/**
 * The request queues of a thread pool (engine/threads/pool.ts): one FIFO per named lane, served in
 * the order of `lanes` (first = highest priority), a lane skipped while it runs on as many threads
 * as its limit allows.
 */

interface Queued {
  lane: string;
  /** Stops listening for the abort signal (the task left its queue). */
  detach(): void;
}

export interface LaneQueues<T extends Queued> {
  readonly lanes: string[];
  /** The queue of a lane, undefined when the pool has no such lane. */
  get(lane: string): T[] | undefined;
  /** Requests waiting in all lanes. */
  size(): number;
  /** Takes the first task of the highest-priority lane that is below its thread limit. */
  next(runningIn: (lane: string) => number): T | undefined;
  /** Empties every lane, detaching each task. */
  drain(): Generator<T>;
}

export function createLaneQueues<T extends Queued>(
  names: readonly string[] | undefined,
  laneLimits: Record<string, number> = {},
): LaneQueues<T> {
  const lanes = names?.length ? [...names] : ['default'];
  const queues = new Map(lanes.map((l) => [l, [] as T[]]));
  return {
    lanes,
    get: (lane) => queues.get(lane),
    size: () => lanes.reduce((n, l) => n + queues.get(l)!.length, 0),
    next(runningIn) {
      for (const l of lanes) {
        const q = queues.get(l)!;
        if (q.length && (laneLimits[l] === undefined || runningIn(l) < laneLimits[l])) return q.shift();
      }
      return undefined;
    },
    *drain() {
      for (const l of lanes) for (const task of queues.get(l)!.splice(0)) yield (task.detach(), task);
    },
  };
}
