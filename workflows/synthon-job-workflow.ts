import {
  ActivityFailure,
  ApplicationFailure,
  proxyActivities,
  type ActivityOptions,
} from '@temporalio/workflow';
import type {
  SynthonJobActivities,
  SynthonScanInput,
  SynthonScanResult,
} from '../activities/synthon-jobs.ts';
import type { JobActivities } from '../activities/jobs.ts';
import {
  INVALID_INPUT_FAILURE,
  WORKER_SHUTDOWN_FAILURE,
  type MolsearchJobResult,
  type SynthonJobInput,
} from './contracts.ts';
import { forEachBounded, recordingEnd, succeed, type JobRecord } from './job-lifecycle.ts';
import { runSynthon3d } from './synthon-job-3d.ts';

/**
 * A synthon-space job (workflow id = job name): checks the query and the space, scans the space's
 * reactions in slices (bounded concurrency, one activity per slice, each writing its hits as a
 * small part to the object store; progress counts slices, and the scans record how far each got;
 * a slice stopped by a worker shutdown is dispatched again, uncounted; Morgan similarity slices
 * search down to the best k-th score of the slices already finished), merges the parts into result.arrow and
 * records SUCCESS with the row count. An input error fails at once (FAILURE with the reason);
 * cancellation records REVOKED. Similarity with synthon_scorer shape or esp ends in the 3D stage
 * (synthon-job-3d.ts). Only keys, reaction ids and counts pass through history.
 */
export async function synthonJobWorkflow(input: SynthonJobInput): Promise<MolsearchJobResult> {
  const book = proxyActivities<JobActivities>({
    startToCloseTimeout: '1 minute',
    retry: { initialInterval: '1s', maximumInterval: '10s', maximumAttempts: 20 },
  });
  const scanOptions = (maximumAttempts: number): ActivityOptions => ({
    taskQueue: input.queues.scan,
    startToCloseTimeout: '30 minutes',
    heartbeatTimeout: '10 seconds',
    retry: {
      initialInterval: '1s',
      backoffCoefficient: 2,
      maximumInterval: '20s',
      maximumAttempts,
      nonRetryableErrorTypes: [INVALID_INPUT_FAILURE],
    },
  });
  // Prepare and merge keep the fixed limit; slices get theirs through scanSlice.
  const scan = proxyActivities<SynthonJobActivities>(scanOptions(SLICE_ATTEMPTS));
  const record: JobRecord = (u) => book.jobRecord({ jobName: input.jobName, ...u });
  const base = {
    mode: input.mode,
    query: input.query,
    // 3D scorers: each slice proposes the shortlist by Morgan, the 3D stage ranks it.
    k: input.threeD ? input.threeD.shortlist : input.k,
    matchMode: input.matchMode,
    prefilter: input.prefilter,
    timeoutMs: input.sliceTimeoutMs ?? (input.mode === 'similarity' ? SIMILARITY_SLICE_MS : 600_000),
    ...(input.sliceMaxHits ? { maxHits: input.sliceMaxHits } : {}),
  };
  return recordingEnd(record, async () => {
    const prep = await scan.synthonPrepare({ jobName: input.jobName, space: input.space, slice: base });
    const total = prep.slices.length;
    await record({ status: 'STARTED', progress: { shardsDone: 0, shardsTotal: total } });
    const results: SynthonScanResult[] = new Array(total);
    let done = 0;
    // Morgan similarity: once a finished slice holds k products at or above a score, no product
    // below it can reach the job's top k, so later slices search down to it only (exact still;
    // a slice over dissimilar reactions no longer walks its thresholds down to 0).
    let floor = 0;
    const floored = input.mode === 'similarity' && !input.threeD;
    await forEachBounded(total, input.concurrency ?? 4, async (i) => {
      const slice = { ...base, reactions: prep.slices[i], ...(floor > 0 ? { floor } : {}) };
      const req = { jobName: input.jobName, space: input.space, index: i, slice, slices: total };
      results[i] = await scanSlice(req, input.sliceAttempts ?? SLICE_ATTEMPTS, scanOptions);
      // Slightly below the k-th score: products tied with it may still outrank by product id.
      if (floored && results[i].kth !== undefined) floor = Math.max(floor, results[i].kth! - 1e-9);
      done++;
      if (done < total) await record({ progress: { shardsDone: done, shardsTotal: total } });
    });
    const timedOut = results.some((r) => r.timedOut);
    const hitCapReached = results.some((r) => r.hitCapReached);
    await record({
      progress: {
        shardsDone: done,
        shardsTotal: total,
        ...(timedOut ? { timedOut } : {}),
        ...(hitCapReached ? { hitCapReached } : {}),
      },
    });
    if (input.threeD && input.mode === 'similarity') return runSynthon3d(input, results, record);
    const merged = await scan.synthonMerge({
      jobName: input.jobName,
      space: input.space,
      keys: results.map((r) => r.key),
      k: input.k,
      query: input.query,
      descriptors: input.descriptors,
    });
    return succeed(record, merged);
  });
}

/**
 * Budget of a similarity slice. It also bounds the tuples the slice may score (similarity-topk.ts),
 * and where a slice cannot finish exactly (the 10^9 space) more of it bought nothing measured: a
 * celecoxib job's best slice kept the same 100 hits (k-th 0.627) with 600 s (350 s spent) as with
 * 120 s (38–57 s), and its whole 120 s job beat the 20 s synchronous answer (k-th 0.587).
 * Structure slices keep 10 minutes. Slices that finish (smaller spaces) are exact either way.
 */
export const SIMILARITY_SLICE_MS = 120_000;

/** Attempts of a slice that really fail before the job fails (a worker shutdown is not one). */
export const SLICE_ATTEMPTS = 8;
/** Worker shutdowns a slice may see before the job fails (a bound, not a limit ever meant to be met). */
export const MAX_SLICE_SHUTDOWNS = 1000;

/**
 * One slice's scan, dispatched again each time a worker shutdown stops it (WORKER_SHUTDOWN_FAILURE,
 * non-retryable, so Temporal spent no attempt on it): a service stopped N times does not use up
 * the slice's attempts. The failures before the stopped attempt (its number − 1) do count: the
 * next dispatch gets the attempts left, so `attempts` bounds the real failures over all dispatches.
 *
 * Replay: without a shutdown failure this schedules exactly the one scan activity per slice it
 * always did (same type, same order; the input has `slices` more, retry options as before), and
 * only this activity code raises that failure, so no existing history takes the new branch: no
 * patched() marker is needed.
 */
async function scanSlice(
  req: SynthonScanInput,
  attempts: number,
  options: (maximumAttempts: number) => ActivityOptions,
): Promise<SynthonScanResult> {
  let failed = 0;
  for (let shutdowns = 0; ; shutdowns++) {
    const scan = proxyActivities<SynthonJobActivities>(options(attempts - failed));
    try {
      return await scan.synthonScan(req);
    } catch (err) {
      const cause = err instanceof ActivityFailure ? err.cause : undefined;
      if (!(cause instanceof ApplicationFailure) || cause.type !== WORKER_SHUTDOWN_FAILURE) throw err;
      if (shutdowns >= MAX_SLICE_SHUTDOWNS) throw err;
      const attempt = Number((cause.details ?? [])[0]);
      failed += Number.isInteger(attempt) && attempt > 1 ? attempt - 1 : 0;
      failed = Math.min(failed, attempts - 1);
    }
  }
}
