/**
 * Node activities of the catalog 3D stage (catalog3dWorkflow): plan a shard's parts, assemble the
 * chem3d worker's part files into the shard's sidecar, finish by updating the manifest. The
 * chemistry itself is the Python worker's (chem3dEmbedPart). A catalog that is not there is a
 * non-retryable `invalid_input`; file errors are thrown plainly and retried.
 */
import { ApplicationFailure } from '@temporalio/common';
import type { Logger } from '../platform/logger.ts';
import { CatalogError, openCatalog } from '../engine/catalog/index.ts';
import {
  assembleShard3d,
  finishCatalog3d,
  planShard3d,
  type ShardPlan3d,
  type ShardResult3d,
} from '../engine/catalog/three-d-stage.ts';
import type { Catalog3dInfo, Embedding3d } from '../engine/catalog/three-d-schema.ts';
import { INVALID_INPUT_FAILURE } from '../workflows/contracts.ts';

export type { ShardResult3d };
export type StageEmbedding = Omit<Embedding3d, 'rdkit_version'>;

export interface Catalog3dPlanResult {
  catalogId: string;
  shards: { index: number; rows: number }[];
  /** The manifest already has 3D data made with these parameters: nothing to do. */
  ready: boolean;
}

async function open(dir: string) {
  try {
    return await openCatalog(dir);
  } catch (err) {
    if (err instanceof CatalogError && err.code === 'catalog_not_found')
      throw ApplicationFailure.nonRetryable(err.message, INVALID_INPUT_FAILURE);
    throw err;
  }
}

export function createCatalog3dActivities(deps: { log: Logger }) {
  return {
    /** Lists the catalog's shards and whether its 3D data is already there (same parameters). */
    async catalog3dPlan(input: { dir: string; embedding: StageEmbedding }): Promise<Catalog3dPlanResult> {
      const c = await open(input.dir);
      const have = c.manifest.three_d?.embedding;
      const same =
        !!have &&
        (Object.keys(input.embedding) as (keyof StageEmbedding)[]).every(
          (k) => have[k] === input.embedding[k],
        );
      return {
        catalogId: c.manifest.id,
        shards: c.manifest.shards.map((s, index) => ({ index, rows: s.rows })),
        ready: same,
      };
    },

    /** Writes the SMILES inputs of one shard's parts (idempotent) and lists the parts. */
    async catalog3dPlanShard(input: { dir: string; shard: number; partRows: number }): Promise<ShardPlan3d> {
      await open(input.dir);
      return planShard3d(input.dir, input.shard, input.partRows);
    },

    /** Builds one shard's sidecar from its part files. */
    async catalog3dAssembleShard(input: {
      dir: string;
      shard: number;
      outPaths: string[];
      embedding: StageEmbedding;
    }): Promise<ShardResult3d> {
      const r = await assembleShard3d(input.dir, input.shard, input.outPaths, input.embedding);
      deps.log.info(
        { dir: input.dir, shard: input.shard, embedded: r.embedded, rejected: r.rejected },
        '3D shard',
      );
      return r;
    },

    /** Records the 3D data in the manifest and removes the stage's scratch files. */
    async catalog3dFinish(input: {
      dir: string;
      embedding: StageEmbedding;
      shards: ShardResult3d[];
    }): Promise<Catalog3dInfo> {
      const info = await finishCatalog3d(input.dir, input.embedding, input.shards);
      deps.log.info({ dir: input.dir, counts: info.counts }, 'catalog 3D stage complete');
      return info;
    },
  };
}

export type Catalog3dActivities = ReturnType<typeof createCatalog3dActivities>;
