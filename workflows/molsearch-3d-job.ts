import { ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { JobPrepareResult } from '../activities/jobs.ts';
import type { Job3dActivities, JobScan3dResult } from '../activities/jobs-3d.ts';
import type { Chem3dActivities } from './chem3d-contracts.ts';
import { INVALID_INPUT_FAILURE, type MolsearchJobInput, type MolsearchJobResult } from './contracts.ts';

import { forEachBounded, succeed, type JobRecord } from './job-lifecycle.ts';

/**
 * The 3D part of molsearchJobWorkflow (docs/search.md, "3D jobs"): the query is embedded once (by
 * the submission's check, or here on the chem3d worker's query queue when it passed none on), its conformers are written to the object store (the shard
 * scans get the key), every shard is scored by 3D alignment on the scan queue, and the parts are
 * merged into the result. History holds the query's conformers once (tens of KB) and keys and
 * counts otherwise. An unembeddable query fails the job with the chem3d worker's reason.
 */
export async function runMolsearch3dJob(
  input: MolsearchJobInput,
  prep: JobPrepareResult,
  record: JobRecord,
): Promise<MolsearchJobResult> {
  const threeD = input.threeD!;
  const chem3d = proxyActivities<Chem3dActivities>({
    taskQueue: threeD.chem3dQueue,
    // A job may wait for a 3D worker to come back; the embedding itself takes seconds.
    scheduleToStartTimeout: '10 minutes',
    startToCloseTimeout: '2 minutes',
    retry: { initialInterval: '2s', maximumAttempts: 5 },
  });
  const book = proxyActivities<Job3dActivities>({
    taskQueue: input.queues.scan,
    startToCloseTimeout: '2 minutes',
    retry: { initialInterval: '1s', maximumInterval: '10s', maximumAttempts: 20 },
  });
  const scan = proxyActivities<Job3dActivities>({
    taskQueue: input.queues.scan,
    startToCloseTimeout: '2 hours',
    heartbeatTimeout: '30 seconds',
    retry: {
      initialInterval: '1s',
      backoffCoefficient: 2,
      maximumInterval: '20s',
      maximumAttempts: 8,
      nonRetryableErrorTypes: [INVALID_INPUT_FAILURE],
    },
  });
  // The submission's check embedded the query already (same recipe): embed it only without those.
  const molecule =
    threeD.query ?? (await chem3d.chem3dEmbedQuery({ smiles: input.smiles, confs: 10, seed: 42 })).molecule;
  if (!molecule.ok)
    throw ApplicationFailure.create({
      message: `cannot embed the query in 3D: ${molecule.reason}`,
      type: INVALID_INPUT_FAILURE,
      nonRetryable: true,
    });
  const query = await book.jobStoreQuery3d({
    jobName: input.jobName,
    smiles: input.smiles,
    molecule,
  });
  const total = prep.shards.length;
  // The job's catalogs decide the first stage of every shard, as a synchronous search's do.
  const catalogs = [...new Set(prep.shards.map((s) => s.catalog))];
  const results: JobScan3dResult[] = new Array(total);
  let done = 0;
  let scored = 0;
  let rejected = 0;
  const progress = () => ({
    shardsDone: done,
    shardsTotal: total,
    rowsScored: scored,
    rowsRejected: rejected,
  });
  await forEachBounded(total, input.concurrency ?? 4, async (i) => {
    const s = prep.shards[i];
    results[i] = await scan.jobScanShard3d({
      jobName: input.jobName,
      catalog: s.catalog,
      shard: s.shard,
      queryKey: query.key,
      k: input.k,
      metric: threeD.metric,
      shortlist: threeD.shortlist,
      catalogs,
    });
    done++;
    scored += results[i].scored;
    rejected += results[i].rejected;
    if (done < total) await record({ progress: progress() });
  });
  await record({ progress: progress() });
  const merged = await scan.jobMerge3d({
    jobName: input.jobName,
    parts: prep.shards.map((s, i) => ({ ...s, key: results[i].key })),
    k: input.k,
    metric: threeD.metric,
    query: prep.canonical,
    queryKey: query.key,
  });
  return succeed(record, merged);
}
