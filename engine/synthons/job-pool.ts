/**
 * Synthon job slices on engine threads, so the activity that runs them keeps heartbeating: each
 * thread opens a space of `spaceDir` (by id) on first use and keeps it.
 */
import { createThreadPool } from '../threads/index.ts';
import type { SynthonJobSlice, SynthonJobSliceResult } from './job-search.ts';

export interface JobSliceRequest {
  space: string;
  slice: SynthonJobSlice;
}
export interface JobSliceReply {
  result: SynthonJobSliceResult;
}

export interface SynthonJobPool {
  /** Aborting `signal` stops the slice where it is (its thread is replaced); it rejects with the reason. */
  run(space: string, slice: SynthonJobSlice, signal?: AbortSignal): Promise<SynthonJobSliceResult>;
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
    run: async (space, slice, signal) =>
      (await pool.run(() => ({ space, slice }), { signal, stopOnAbort: true })).result,
    close: () => pool.close(),
  };
}
