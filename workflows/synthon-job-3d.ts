import { ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { Synthon3dActivities, SynthonScore3dResult } from '../activities/synthon-jobs-3d.ts';
import type { SynthonScanResult } from '../activities/synthon-jobs.ts';
import type { Chem3dActivities } from './chem3d-contracts.ts';
import { INVALID_INPUT_FAILURE, type MolsearchJobResult, type SynthonJobInput } from './contracts.ts';
import { forEachBounded, succeed, type JobRecord } from './job-lifecycle.ts';

/**
 * Products per chem3d batch: their conformers pass through history twice (the batch's result and
 * the scoring activity's input), ~10 KB a product, so a batch stays far below Temporal's 2 MB
 * payload limit.
 */
export const SYNTHON_3D_BATCH = 16;

/**
 * The 3D end of a synthon similarity job (synthon_scorer shape or esp), after the Morgan slices:
 * the best `threeD.shortlist` products become the shortlist, the products (and the query, unless
 * the submission passed its conformers on) are embedded by the chem3d worker (ETKDGv3, 10
 * conformers, seed 42, as catalogs and queries), every batch is scored by the exact 3D stage on
 * the scan queue, and the result is ranked by the score.
 */
export async function runSynthon3d(
  input: SynthonJobInput,
  scans: SynthonScanResult[],
  record: JobRecord,
): Promise<MolsearchJobResult> {
  const threeD = input.threeD!;
  const embedOpts = {
    // A job may wait for a 3D worker to come back; an embedding batch takes seconds.
    scheduleToStartTimeout: '10 minutes',
    startToCloseTimeout: '5 minutes',
    retry: { initialInterval: '2s', maximumAttempts: 5 },
  } as const;
  const queryChem3d = proxyActivities<Chem3dActivities>({ taskQueue: threeD.queryQueue, ...embedOpts });
  const chem3d = proxyActivities<Chem3dActivities>({ taskQueue: threeD.chem3dQueue, ...embedOpts });
  const scan = proxyActivities<Synthon3dActivities>({
    taskQueue: input.queues.scan,
    startToCloseTimeout: '10 minutes',
    heartbeatTimeout: '1 minute',
    retry: { initialInterval: '1s', maximumInterval: '20s', maximumAttempts: 8 },
  });
  const keys = scans.map((r) => r.key);
  const list = await scan.synthonShortlist({ jobName: input.jobName, keys, shortlist: threeD.shortlist });
  // The submission's check embedded the query already (same recipe); a workflow started without
  // those conformers embeds it here.
  const queryMol =
    threeD.query ??
    (await queryChem3d.chem3dEmbedQuery({ smiles: input.query, confs: 10, seed: 42 })).molecule;
  if (!queryMol.ok)
    throw ApplicationFailure.create({
      message: `cannot embed the query in 3D: ${queryMol.reason}`,
      type: INVALID_INPUT_FAILURE,
      nonRetryable: true,
    });
  // A stage of its own in the job's progress: the slices' fraction alone read 1 here while
  // the products were still being embedded (user trial: "fraction 1" for 13 minutes).
  await record({ progress: { stage: 'rerank_3d', shardsDone: 0, shardsTotal: list.smiles.length } });
  const batches = Math.ceil(list.smiles.length / SYNTHON_3D_BATCH);
  const scores: SynthonScore3dResult = new Array(list.smiles.length).fill(null);
  let done = 0;
  await forEachBounded(batches, 2, async (b) => {
    const smiles = list.smiles.slice(b * SYNTHON_3D_BATCH, (b + 1) * SYNTHON_3D_BATCH);
    const mols = await chem3d.chem3dEmbedBatch({ smiles, confs: 10, seed: 42 });
    const s = await scan.synthonScore3d({
      query: queryMol,
      molecules: mols.molecules,
      metric: threeD.metric,
    });
    s.forEach((x, j) => (scores[b * SYNTHON_3D_BATCH + j] = x));
    done += smiles.length;
    await record({ progress: { shardsDone: done, shardsTotal: list.smiles.length } });
  });
  const merged = await scan.synthonMerge3d({
    jobName: input.jobName,
    space: input.space,
    query: input.query,
    k: input.k,
    descriptors: input.descriptors,
    shortlistKey: list.key,
    scores,
    metric: threeD.metric,
    timedOut: list.timedOut,
    keys,
  });
  return succeed(record, merged);
}
