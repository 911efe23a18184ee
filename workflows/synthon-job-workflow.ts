import { proxyActivities } from '@temporalio/workflow';
import type { SynthonJobActivities, SynthonScanResult } from '../activities/synthon-jobs.ts';
import type { JobActivities } from '../activities/jobs.ts';
import { INVALID_INPUT_FAILURE, type MolsearchJobResult, type SynthonJobInput } from './contracts.ts';
import { forEachBounded, recordingEnd, succeed, type JobRecord } from './job-lifecycle.ts';
import { runSynthon3d } from './synthon-job-3d.ts';

/**
 * A synthon-space job (workflow id = job name): checks the query and the space, scans the space's
 * reactions in slices (bounded concurrency, one activity per slice, each writing its hits as a
 * small part to the object store; progress counts slices; Morgan similarity slices search down to
 * the best k-th score of the slices already finished), merges the parts into result.arrow and
 * records SUCCESS with the row count. An input error fails at once (FAILURE with the reason);
 * cancellation records REVOKED. Similarity with synthon_scorer shape or esp ends in the 3D stage
 * (synthon-job-3d.ts). Only keys, reaction ids and counts pass through history.
 */
export async function synthonJobWorkflow(input: SynthonJobInput): Promise<MolsearchJobResult> {
  const book = proxyActivities<JobActivities>({
    startToCloseTimeout: '1 minute',
    retry: { initialInterval: '1s', maximumInterval: '10s', maximumAttempts: 20 },
  });
  const scan = proxyActivities<SynthonJobActivities>({
    taskQueue: input.queues.scan,
    startToCloseTimeout: '30 minutes',
    heartbeatTimeout: '10 seconds',
    retry: {
      initialInterval: '1s',
      backoffCoefficient: 2,
      maximumInterval: '20s',
      maximumAttempts: 8,
      nonRetryableErrorTypes: [INVALID_INPUT_FAILURE],
    },
  });
  const record: JobRecord = (u) => book.jobRecord({ jobName: input.jobName, ...u });
  const base = {
    mode: input.mode,
    query: input.query,
    // 3D scorers: each slice proposes the shortlist by Morgan, the 3D stage ranks it.
    k: input.threeD ? input.threeD.shortlist : input.k,
    matchMode: input.matchMode,
    prefilter: input.prefilter,
    timeoutMs: input.sliceTimeoutMs ?? 600_000,
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
      results[i] = await scan.synthonScan({ jobName: input.jobName, space: input.space, index: i, slice });
      // Slightly below the k-th score: products tied with it may still outrank by product id.
      if (floored && results[i].kth !== undefined) floor = Math.max(floor, results[i].kth! - 1e-9);
      done++;
      if (done < total) await record({ progress: { shardsDone: done, shardsTotal: total } });
    });
    const timedOut = results.some((r) => r.timedOut);
    await record({ progress: { shardsDone: done, shardsTotal: total, ...(timedOut ? { timedOut } : {}) } });
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
