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
  ): Promise<SynthonJobSliceResult> & { progress(): { started: boolean; fraction: number } };
  close(): Promise<void>;
}

export function createSynthonJobPool(opts: { spaceDir: string; threads?: number }): SynthonJobPool {
  const pool = createThreadPool<JobSliceRequest, JobSliceReply>({
    name: 'synthon job',
    script: new URL('./job-thread.ts', import.meta.url),
    size: opts.threads ?? 1,
    unrefIdle: true,
    workerData: () => ({ spaceDir: opts.spaceDir }),
  });
  return {
    run: (space, slice, signal) => {
      const progress = new SharedArrayBuffer(8);
      const cell = new Int32Array(progress);
      const reply = pool.run(() => ({ space, slice, progress }), { signal, stopOnAbort: true });
      return Object.assign(
        reply.then((r) => r.result),
        { progress: () => ({ started: Atomics.load(cell, 1) === 1, fraction: Atomics.load(cell, 0) / 1e6 }) },
      );
    },
    close: () => pool.close(),
  };
}
