/**
 * How far the running slices of synthon jobs got, recorded in the job store (progress.slices) at
 * most once per `intervalMs` per job and worker: the slices of one job on this worker share one
 * write, so a job of 4 running slices costs one UPDATE every few seconds, not four. A slice's end
 * (1) is written at once, after any write still under way, so it is never overwritten by an older
 * fraction. Progress is advisory: a failed write is logged, never fails the slice.
 */
import type { Logger } from '../platform/logger.ts';
import type { Jobs } from '../store/jobs.ts';

export interface SliceProgressWriter {
  /** The slice's fraction now (recorded with the job's next write). */
  report(job: string, slices: number, index: number, fraction: number): void;
  /** The slice is done (its part written): records 1 now. */
  finish(job: string, slices: number, index: number): Promise<void>;
}

interface JobState {
  pending: Record<string, number>;
  slices: number;
  last: number;
  timer?: NodeJS.Timeout;
  /** The write under way (writes of a job run one after another). */
  chain: Promise<void>;
}

export function createSliceProgressWriter(
  jobs: Pick<Jobs, 'sliceProgress'>,
  log: Logger,
  intervalMs = 5_000,
): SliceProgressWriter {
  const states = new Map<string, JobState>();

  const flush = (job: string, s: JobState): Promise<void> => {
    clearTimeout(s.timer);
    s.timer = undefined;
    const values = s.pending;
    s.pending = {};
    if (Object.keys(values).length === 0) return s.chain;
    s.last = Date.now();
    s.chain = s.chain
      .then(() => jobs.sliceProgress(job, values, s.slices))
      .catch((err: unknown) => log.warn({ err, job }, 'could not record synthon slice progress'));
    return s.chain;
  };

  const state = (job: string, slices: number): JobState => {
    let s = states.get(job);
    // A job's first write also waits an interval: a state forgotten by finish() and made again
    // by the next report never writes sooner than the interval allows.
    if (!s) states.set(job, (s = { pending: {}, slices, last: Date.now(), chain: Promise.resolve() }));
    return s;
  };

  return {
    report(job, slices, index, fraction) {
      const s = state(job, slices);
      s.pending[index] = Math.round(fraction * 1000) / 1000;
      if (s.timer) return;
      s.timer = setTimeout(() => void flush(job, s), Math.max(0, s.last + intervalMs - Date.now()));
      s.timer.unref();
    },
    async finish(job, slices, index) {
      const s = state(job, slices);
      s.pending[index] = 1;
      await flush(job, s);
      // Forget a job none of whose slices waits to write (the map holds running jobs only).
      if (!s.timer && Object.keys(s.pending).length === 0 && states.get(job) === s) states.delete(job);
    },
  };
}
