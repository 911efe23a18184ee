/**
 * The 3D side's shared names and shapes: the Python chem3d worker's task queues and activity
 * payloads (chem3d/worker.py is the other end), the query-embedding and catalog 3D workflows.
 * Re-exported by contracts.ts for the API.
 */

/** The Python worker's queues: catalog stages apart from queries, so a query never waits behind one. */
export const CHEM3D_QUEUES = { catalog: 'chem3d', query: 'chem3d-query' } as const;

export function chem3dQueue(prefix: string, kind: keyof typeof CHEM3D_QUEUES): string {
  return `${prefix}-${CHEM3D_QUEUES[kind]}`;
}

/** Embedding parameters (chem3d/embed.py): ETKDGv3, up to `confs` conformers pruned at 0.5 Å. */
export interface EmbedParams {
  /** Conformers asked of ETKDGv3 (1..50; default 10, espsim's). */
  confs?: number;
  /** Random seed (default 42): the same SMILES and seed give the same coordinates. */
  seed?: number;
  /** MMFF94-optimise each conformer (default false). */
  mmff?: boolean;
  /** RDKit's embedding timeout per molecule, seconds (0 = none). */
  timeoutSeconds?: number;
}

/** One molecule as the Python worker returns it: typed arrays as base64 of little-endian bytes. */
export type EmbeddedWire =
  | {
      ok: true;
      atomCount: number;
      confCount: number;
      /** uint8 atomic numbers, hydrogens included. */
      elements: string;
      /** float32 Gasteiger charges. */
      charges: string;
      /** float32, confCount × atomCount × 3 (conformer-major). */
      coords: string;
    }
  | {
      ok: false;
      reason: string;
      /** The worker took the query but it was not embedded within `budgetSeconds` (chem3dEmbedQuery). */
      timedOut?: boolean;
    };

export interface EmbedBatchInput extends EmbedParams {
  smiles: string[];
  /** Seconds after which no further molecule is started (0 or absent: none); see `timedOut`. */
  budgetSeconds?: number;
}
export interface EmbedBatchResult {
  rdkitVersion: string;
  /** In input order; shorter than the input only when the budget stopped the batch. */
  molecules: EmbeddedWire[];
  timedOut?: boolean;
}

export interface EmbedQueryInput extends EmbedParams {
  smiles: string;
  /**
   * Seconds the worker gives the embedding (0 or absent: none). Past it the worker answers
   * `{ok: false, timedOut: true, reason}` itself, so a slow molecule is told apart from a worker
   * that never took the task (docs/chem3d.md).
   */
  budgetSeconds?: number;
}
export interface EmbedQueryResult {
  rdkitVersion: string;
  molecule: EmbeddedWire;
}

/** A slice of a shard for the catalog 3D stage: SMILES file in, part file out (chem3d/partfile.py). */
export interface EmbedPartInput extends EmbedParams {
  inPath: string;
  outPath: string;
}
export interface EmbedPartResult {
  rows: number;
  embedded: number;
  rejected: number;
}

/** The activities the Python worker registers, typed for proxyActivities in workflows. */
export interface Chem3dActivities {
  chem3dEmbedBatch(input: EmbedBatchInput): Promise<EmbedBatchResult>;
  chem3dEmbedQuery(input: EmbedQueryInput): Promise<EmbedQueryResult>;
  chem3dEmbedPart(input: EmbedPartInput): Promise<EmbedPartResult>;
}

export const CHEM3D_WORKFLOWS = {
  embedQuery: 'embedQueryWorkflow',
  embedShortlist: 'embedShortlistWorkflow',
  catalog3d: 'catalog3dWorkflow',
} as const;

export interface EmbedQueryWorkflowInput extends EmbedQueryInput {
  queue: string;
  /** The whole budget: waiting for a worker plus embedding. */
  deadlineMs: number;
}

/**
 * Activities the Python worker runs at once on its query queue (`max_concurrent_activities` of
 * the query worker in chem3d/worker.py), each on its own core: a shortlist keeps this many batches
 * in flight.
 */
export const CHEM3D_QUERY_SLOTS = 2;

/** Molecules of a synchronous request embedded on the query queue within one budget. */
export interface EmbedShortlistWorkflowInput extends EmbedParams {
  smiles: string[];
  queue: string;
  /** The whole budget, waiting for the worker included; what is not embedded by then is left out. */
  budgetMs: number;
  /** Molecules per chem3dEmbedBatch activity (default 8). */
  batch?: number;
  /** Batches in flight (default CHEM3D_QUERY_SLOTS). */
  parallel?: number;
}
export interface EmbedShortlistResult {
  rdkitVersion: string;
  /** In input order: the molecule, its failure, or null when the budget ran out before it. */
  molecules: (EmbeddedWire | null)[];
  timedOut: boolean;
}

export const chem3dWorkflowIds = {
  /** One 3D stage per catalog at a time; a second start of the same stage joins the first. */
  catalog3d: (catalogId: string) => `catalog3d-${catalogId}`,
};

/** A catalog's 3D stage: every molecule embedded by the chem3d worker into shard sidecars. */
export interface Catalog3dInput {
  /** Absolute directory of the catalog (Node and Python workers see the same path). */
  dir: string;
  /** Conformers asked of ETKDGv3 (default 10), seed (default 42), MMFF (default false). */
  confs?: number;
  seed?: number;
  mmff?: boolean;
  /** Rows per chem3d activity (default 256): the unit of retry and of resumption. */
  partRows?: number;
  /** A chem3d worker silent this long is presumed dead and its part retried (default 2 min). */
  heartbeatTimeoutMs?: number;
  /** Parts in flight at once (default 2, so the next is queued when one finishes). */
  concurrency?: number;
  queues: { node: string; chem3d: string };
  /** Set by continue-as-new: shards already done and their results. */
  resume?: { nextShard: number; done: unknown[] };
}

export interface Catalog3dProgress {
  state: 'planning' | 'embedding' | 'finishing' | 'done';
  shardsDone: number;
  shardsTotal: number;
  moleculesDone: number;
  moleculesTotal: number;
  embedded: number;
  rejected: number;
  /** When this run of the stage started (ms since the epoch), for an estimate of its end. */
  startedAt: number;
}

/** Query name of a running stage's progress (Catalog3dProgress). */
export const CATALOG_3D_PROGRESS_QUERY = 'catalog3dProgress';

export interface Catalog3dResult {
  catalogId: string;
  molecules: number;
  embedded: number;
  rejected: number;
  conformers: number;
  /** True when the manifest already had this 3D data. */
  alreadyReady: boolean;
}
