import { proxyActivities } from '@temporalio/workflow';
import type { AnalysisJobActivities } from '../activities/analysis-jobs.ts';
import type { JobActivities } from '../activities/jobs.ts';
import { INVALID_INPUT_FAILURE, type AnalysisJobInput, type AnalysisJobResult } from './contracts.ts';
import { forEachBounded, recordingEnd, succeed, type JobRecord } from './job-lifecycle.ts';

/**
 * An analysis job (workflow id = job name; docs/operations.md, "Jobs"): counts the chunks of the
 * request the API stored, runs one activity per chunk on the scan queue (bounded concurrency; each
 * writes its part to the object store), records progress after each chunk (shards_done /
 * shards_total of /job_info count chunks), assembles the result and records SUCCESS. Chunks that
 * completed are in history, so after a worker restart the job continues with the missing ones.
 * An input error fails at once (FAILURE with the reason); cancellation records REVOKED.
 */
export async function analysisJobWorkflow(input: AnalysisJobInput): Promise<AnalysisJobResult> {
  const book = proxyActivities<JobActivities>({
    startToCloseTimeout: '1 minute',
    retry: { initialInterval: '1s', maximumInterval: '10s', maximumAttempts: 20 },
  });
  const work = proxyActivities<AnalysisJobActivities>({
    taskQueue: input.scanQueue,
    startToCloseTimeout: '30 minutes',
    heartbeatTimeout: '2 minutes',
    retry: {
      initialInterval: '1s',
      backoffCoefficient: 2,
      maximumInterval: '20s',
      maximumAttempts: 8,
      nonRetryableErrorTypes: [INVALID_INPUT_FAILURE],
    },
  });
  const record: JobRecord = (u) => book.jobRecord({ jobName: input.jobName, ...u });
  return recordingEnd(record, async () => {
    const { chunks } = await work.analysisPrepare({ jobName: input.jobName });
    await record({ status: 'STARTED', progress: { shardsDone: 0, shardsTotal: chunks } });
    const parts: string[] = new Array(chunks);
    let done = 0;
    await forEachBounded(chunks, input.concurrency ?? 2, async (i) => {
      parts[i] = (await work.analysisChunk({ jobName: input.jobName, chunk: i })).key;
      done++;
      await record({ progress: { shardsDone: done, shardsTotal: chunks } });
    });
    const r = await work.analysisFinish({ jobName: input.jobName, parts });
    return succeed(record, { key: r.resultKey, rows: r.rows });
  });
}
