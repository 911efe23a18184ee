import { continueAsNew, defineQuery, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { Catalog3dActivities, ShardResult3d, StageEmbedding } from '../activities/catalog3d.ts';
import {
  CATALOG_3D_PROGRESS_QUERY,
  INVALID_INPUT_FAILURE,
  type Catalog3dInput,
  type Catalog3dProgress,
  type Catalog3dResult,
  type Chem3dActivities,
} from './contracts.ts';

/**
 * A catalog's 3D stage (workflow id catalog3d-<id>): shard by shard, the Node worker slices the
 * shard's SMILES into parts, the Python chem3d worker embeds each part into a part file (up to
 * `concurrency` at once, heartbeating per molecule, retried elsewhere when a worker dies), the
 * Node worker assembles the shard's sidecar, and at the end records it all in the manifest.
 * Only paths and counts pass through history; the parts on disk make every step resumable.
 * Progress: the `catalog3dProgress` query.
 */
export async function catalog3dWorkflow(input: Catalog3dInput): Promise<Catalog3dResult> {
  const node = proxyActivities<Catalog3dActivities>({
    taskQueue: input.queues.node,
    startToCloseTimeout: '10 minutes',
    retry: { initialInterval: '1s', maximumInterval: '30s', nonRetryableErrorTypes: [INVALID_INPUT_FAILURE] },
  });
  const py = proxyActivities<Chem3dActivities>({
    taskQueue: input.queues.chem3d,
    // A part waits in the queue while others embed; a dead worker is noticed by its heartbeat.
    startToCloseTimeout: '2 hours',
    heartbeatTimeout: input.heartbeatTimeoutMs ?? 120_000,
    retry: { initialInterval: '2s', maximumInterval: '1 minute' },
  });
  const embedding: StageEmbedding = {
    method: 'ETKDGv3',
    confs: input.confs ?? 10,
    prune_rms: 0.5,
    seed: input.seed ?? 42,
    mmff: input.mmff ?? false,
    charges: 'gasteiger',
    fragment: 'largest',
  };
  const progress: Catalog3dProgress = {
    state: 'planning',
    shardsDone: 0,
    shardsTotal: 0,
    moleculesDone: 0,
    moleculesTotal: 0,
    embedded: 0,
    rejected: 0,
    startedAt: Date.now(), // workflow time: deterministic on replay
  };
  setHandler(defineQuery<Catalog3dProgress>(CATALOG_3D_PROGRESS_QUERY), () => progress);
  const plan = await node.catalog3dPlan({ dir: input.dir, embedding });
  progress.shardsTotal = plan.shards.length;
  progress.moleculesTotal = plan.shards.reduce((n, s) => n + s.rows, 0);
  const done = (input.resume?.done ?? []) as ShardResult3d[];
  for (const r of done) {
    progress.shardsDone++;
    progress.moleculesDone += r.rows;
    progress.embedded += r.embedded;
    progress.rejected += r.rejected;
  }
  const summary = (alreadyReady: boolean): Catalog3dResult => ({
    catalogId: plan.catalogId,
    molecules: progress.moleculesTotal,
    embedded: progress.embedded,
    rejected: progress.rejected,
    conformers: done.reduce((n, r) => n + r.conformers, 0),
    alreadyReady,
  });
  if (plan.ready) {
    progress.state = 'done';
    return summary(true);
  }
  progress.state = 'embedding';
  for (let s = input.resume?.nextShard ?? 0; s < plan.shards.length; s++) {
    const shardPlan = await node.catalog3dPlanShard({
      dir: input.dir,
      shard: s,
      partRows: input.partRows ?? 256,
    });
    let next = 0;
    // Counted per part, as moleculesDone, so the progress adds up while the shard is embedded
    // (embedded + rejected = moleculesDone); the shard's assembly has the last word on its counts.
    const inShard = { embedded: 0, rejected: 0 };
    const lane = async (): Promise<void> => {
      while (next < shardPlan.parts.length) {
        const part = shardPlan.parts[next++];
        const counts = await py.chem3dEmbedPart({
          inPath: part.inPath,
          outPath: part.outPath,
          ...embeddingParams(embedding),
        });
        progress.moleculesDone += part.rows;
        progress.embedded += counts.embedded;
        progress.rejected += counts.rejected;
        inShard.embedded += counts.embedded;
        inShard.rejected += counts.rejected;
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, input.concurrency ?? 2) }, lane));
    const r = await node.catalog3dAssembleShard({
      dir: input.dir,
      shard: s,
      outPaths: shardPlan.parts.map((p) => p.outPath),
      embedding,
    });
    done.push(r);
    progress.shardsDone++;
    progress.embedded += r.embedded - inShard.embedded;
    progress.rejected += r.rejected - inShard.rejected;
    if (s + 1 < plan.shards.length && workflowInfo().continueAsNewSuggested)
      await continueAsNew<typeof catalog3dWorkflow>({ ...input, resume: { nextShard: s + 1, done } });
  }
  progress.state = 'finishing';
  await node.catalog3dFinish({ dir: input.dir, embedding, shards: done });
  progress.state = 'done';
  return summary(false);
}

function embeddingParams(e: StageEmbedding) {
  // A catalog molecule that does not embed within 30 s is rejected rather than stalling its part.
  return { confs: e.confs, seed: e.seed, mmff: e.mmff, timeoutSeconds: 30 };
}
