/**
 * Synthon job slices on engine threads, so the activity that runs them keeps heartbeating: each
 * thread opens a space of `spaceDir` (by id) on first use and keeps it.
 */
import { createThreadPool } from '../threads/index.ts';
import type { SynthonJobSlice, SynthonJobSliceResult } from './job-search.ts';

export interface JobSliceRequest {
  space: string;
  slice: SynthonJobSlice;
  /**
   * Shared with the caller (Int32 cells, Atomics): [0] the slice's progress in millionths, [1] 1
   * once the thread started the slice (it may wait in the pool's queue before).
   */
  progress?: SharedArrayBuffer;
}
export interface JobSliceReply {
  result: SynthonJobSliceResult;
}

/** The engine lane of a slice: slices of large spaces never queue ahead of small spaces' ones. */
export type JobLane = 'large' | 'small';

export interface SynthonJobPool {
  /**
   * Aborting `signal` stops the slice where it is (its thread is replaced); it rejects with the
   * reason. `progress()` answers whether the slice started on its thread and how far it got
   * (0..1; 0 when its mode does not report), read from memory shared with the thread: no
   * message per update.
   */
  run(
    space: string,
    slice: SynthonJobSlice,
    signal?: AbortSignal,
    lane?: JobLane,
  ): Promise<SynthonJobSliceResult> & { progress(): { started: boolean; fraction: number } };
  close(): Promise<void>;
}

/**
 * Two lanes of `threads` engine threads each, made on first use: a slice of a large space (two
 * minutes of a 10^9 space's similarity, ten of its structure search) would otherwise hold the
 * one queue that every small space's slice waits in (user trial: an Idorsia job took 13 minutes
 * beside a default-space job instead of 30 s).
 */
export function createSynthonJobPool(opts: { spaceDir: string; threads?: number }): SynthonJobPool {
  const make = (lane: JobLane) =>
    createThreadPool<JobSliceRequest, JobSliceReply>({
      name: `synthon job (${lane} spaces)`,
      script: new URL('./job-thread.ts', import.meta.url),
      size: opts.threads ?? 1,
      unrefIdle: true,
      workerData: () => ({ spaceDir: opts.spaceDir }),
    });
  const lanes = new Map<JobLane, ReturnType<typeof make>>();
  const laneOf = (lane: JobLane) => {
    let p = lanes.get(lane);
    if (!p) lanes.set(lane, (p = make(lane)));
    return p;
  };
  return {
    run: (space, slice, signal, lane = 'small') => {
      const progress = new SharedArrayBuffer(8);
      const cell = new Int32Array(progress);
      const reply = laneOf(lane).run(() => ({ space, slice, progress }), { signal, stopOnAbort: true });
      return Object.assign(
        reply.then((r) => r.result),
        { progress: () => ({ started: Atomics.load(cell, 1) === 1, fraction: Atomics.load(cell, 0) / 1e6 }) },
      );
    },
    close: async () => {
      await Promise.all([...lanes.values()].map((p) => p.close()));
    },
  };
}
