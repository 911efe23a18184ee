import {
  ActivityFailure,
  ApplicationFailure,
  isCancellation,
  patched,
  proxyActivities,
} from '@temporalio/workflow';
import type { JobActivities, JobScanResult } from '../activities/jobs.ts';
import {
  CORRUPT_SHARD_FAILURE,
  INVALID_INPUT_FAILURE,
  type MolsearchJobInput,
  type MolsearchJobResult,
} from './contracts.ts';
import { runMolsearch3dJob } from './molsearch-3d-job.ts';
import { forEachBounded, recordingEnd, succeed, type JobRecord } from './job-lifecycle.ts';

/** Failures that no other worker would avoid: the job fails instead of moving the scan. */
function isFinal(err: unknown): boolean {
  let e: unknown = err;
  while (e instanceof ActivityFailure && e.cause) e = e.cause;
  return (
    e instanceof ApplicationFailure && [INVALID_INPUT_FAILURE, CORRUPT_SHARD_FAILURE].includes(e.type ?? '')
  );
}

/**
 * A legacy molsearch job (workflow id = job name): parses the query, scans every shard of the
 * named catalogs (bounded concurrency, one activity per shard, each writing a small top-k part to
 * the object store), merges the parts into result.arrow and records SUCCESS with the row count.
 * An input error fails at once (FAILURE with the reason); cancellation records REVOKED. With
 * `threeD` the shards are scored by 3D alignment instead (molsearch-3d-job.ts).
 * Only keys and counts pass through history.
 */
export async function molsearchJobWorkflow(input: MolsearchJobInput): Promise<MolsearchJobResult> {
  const book = proxyActivities<JobActivities>({
    startToCloseTimeout: '1 minute',
    retry: { initialInterval: '1s', maximumInterval: '10s', maximumAttempts: 20 },
  });
  const scan = proxyActivities<JobActivities>({
    taskQueue: input.queues.scan,
    startToCloseTimeout: '15 minutes',
    heartbeatTimeout: '10 seconds',
    retry: {
      initialInterval: '1s',
      backoffCoefficient: 2,
      maximumInterval: '20s',
      maximumAttempts: 8,
      nonRetryableErrorTypes: [INVALID_INPUT_FAILURE, CORRUPT_SHARD_FAILURE],
    },
  });
  // A scan placed on the worker holding its shard: one attempt, which must start within 10 s; a
  // holder that is gone (never starts it) or dies (stops heartbeating) sends it to the shared queue.
  const placedScan = (queue: string) =>
    proxyActivities<JobActivities>({
      taskQueue: queue,
      startToCloseTimeout: '15 minutes',
      scheduleToStartTimeout: '10 seconds',
      heartbeatTimeout: '10 seconds',
      retry: { maximumAttempts: 1 },
    });
  const record: JobRecord = (u) => book.jobRecord({ jobName: input.jobName, ...u });
  return recordingEnd(record, async () => {
    const prep = await scan.jobPrepare({
      jobName: input.jobName,
      smiles: input.smiles,
      dbNames: input.dbNames,
    });
    const total = prep.shards.length;
    await record({ status: 'STARTED', progress: { shardsDone: 0, shardsTotal: total } });
    if (input.threeD) return await runMolsearch3dJob(input, prep, record);
    // Placement (docs/scaling.md); jobs started before it existed replay without it.
    const placed = patched('fleet-placement')
      ? (await scan.jobPlace({ shards: prep.shards })).queues
      : prep.shards.map(() => null);
    /** Holder queues that failed a scan in this job: later scans skip them. */
    const gone = new Set<string>();
    const results: JobScanResult[] = new Array(total);
    let done = 0;
    await forEachBounded(total, input.concurrency ?? 4, async (i) => {
      const s = prep.shards[i];
      const args = { jobName: input.jobName, catalog: s.catalog, shard: s.shard, fp: prep.fp, k: input.k };
      const queue = placed[i];
      let r: JobScanResult | undefined;
      if (queue && !gone.has(queue)) {
        try {
          r = await placedScan(queue).jobScanShard(args);
        } catch (err) {
          if (isCancellation(err) || isFinal(err)) throw err;
          gone.add(queue);
        }
      }
      results[i] = r ?? (await scan.jobScanShard(args));
      done++;
      // Progress counters for job info; a handful of shards per job keeps history small.
      if (done < total) await record({ progress: { shardsDone: done, shardsTotal: total } });
    });
    await record({ progress: { shardsDone: done, shardsTotal: total } });
    const merged = await scan.jobMerge({
      jobName: input.jobName,
      parts: prep.shards.map((s, i) => ({ ...s, key: results[i].key })),
      k: input.k,
      fp: prep.fp,
      query: prep.canonical,
    });
    return succeed(record, merged);
  });
}
