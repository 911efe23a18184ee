/**
 * The legacy job life cycle as the API sees it: submit (a job row + a Temporal workflow whose id
 * is the job name), status, info, the caller's jobs, revoke, and pages of the result. Every read
 * is scoped to the caller: another user's job is a 404 everywhere.
 */
import { createLru } from '../../platform/lru.ts';
import type { WorkflowClient } from '@temporalio/client';
import { DomainError, invalidSmiles, notFound, validationError } from '../../platform/errors.ts';
import type { Logger } from '../../platform/logger.ts';
import type { ObjectStore } from '../../platform/object-store/index.ts';
import { FINAL_JOB_STATUSES, type JobRecord, type Jobs, type JobStatus } from '../../store/jobs.ts';
import { getRDKit, parseMolecule } from '../../engine/chem/index.ts';
import { moleculeToBase64, type Molecule3d } from '../../engine/catalog/three-d-schema.ts';
import { resultView, type JobResult, type ResultView } from '../../engine/export/index.ts';
import { shortlistSize, THREE_D_TYPES } from './shape-search.ts';
import {
  chem3dQueue,
  JOB_WORKFLOWS,
  taskQueue,
  type JobQueues,
  type MolsearchJobInput,
} from '../../workflows/contracts.ts';
import { JOB_NAME_PATTERN, newJobName } from './jobs-ids.ts';
import {
  buildPage,
  createResultCache,
  emptyPage,
  pageJson,
  type Page,
  type PageRequest,
} from './jobs-page.ts';

export const MAX_JOB_NEIGHBORS = 100_000;

export interface JobServiceDeps {
  jobs: Jobs;
  objects: ObjectStore;
  workflows: WorkflowClient;
  taskQueuePrefix: string;
  log: Logger;
  /** Shard scans a job runs at once. */
  scanConcurrency?: number;
  /** Memory budget of decoded job results kept for paging (RESULT_CACHE_BYTES). */
  resultCacheBytes?: number;
}

export interface SubmitRequest {
  smiles: string;
  dbNames: string[];
  k: number;
  searchType: string;
  searchQuality: string;
  includeProperties: boolean;
  /** 3D jobs: the query's conformers from the submission's check, passed on to the workflow. */
  query3d?: Molecule3d;
}

/** The job as /user_jobs and the job-info endpoint show it. */
export interface JobView {
  job_name: string;
  status: JobStatus;
  kind: string;
  parameters: Record<string, unknown>;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
  rows: number | null;
  error: string | null;
  progress: {
    shards_done: number | null;
    shards_total: number | null;
    /** 3D jobs: rows aligned and scored, and rows without a 3D model (skipped). */
    rows_scored?: number;
    rows_rejected?: number;
    /** Synthon jobs: a slice stopped at its time or product limit. */
    timed_out?: boolean;
    /** Synthon structure jobs: more hits exist than the slices ranked (10 × the wanted count). */
    hit_cap_reached?: boolean;
    /**
     * Synthon jobs: share done, 0..1 (each slice counts by how far it got, so it moves within
     * slices; shards_done still counts whole slices). With a 3D scorer the slices make the first
     * half and the 3D stage's embedded products the second; 1 after SUCCESS.
     */
    fraction?: number;
    /** Synthon jobs with a 3D scorer, once the slices are done: the 3D reranking. */
    stage?: 'rerank_3d';
  };
}

/**
 * A synthon job's share done (1 after SUCCESS): the mean of the slices' fractions; with a 3D
 * scorer the slices are the first half and the 3D stage's embedded products the second.
 */
export function sliceFraction(j: Pick<JobRecord, 'progress' | 'status' | 'params'>): number | undefined {
  const { slices, slicesTotal, stage, shardsDone, shardsTotal } = j.progress;
  if (!slices || !slicesTotal) return undefined;
  if (j.status === 'SUCCESS') return 1;
  const round = (f: number) => Math.round(1000 * f) / 1000;
  if (stage === 'rerank_3d') return round(0.5 + (0.5 * (shardsDone ?? 0)) / Math.max(1, shardsTotal ?? 0));
  const sum = Object.values(slices).reduce((n, f) => n + Math.min(1, Math.max(0, f)), 0);
  const scorer = j.params.synthon_scorer;
  const threeD =
    (j.params.search_mode ?? 'similarity') === 'similarity' && (scorer === 'shape' || scorer === 'esp');
  return round((threeD ? 0.5 : 1) * (sum / slicesTotal));
}

function toView(j: JobRecord): JobView {
  const fraction = sliceFraction(j);
  return {
    job_name: j.id,
    status: j.status,
    kind: j.kind,
    parameters: j.params,
    created_at: j.createdAt.toISOString(),
    updated_at: j.updatedAt.toISOString(),
    finished_at: j.finishedAt ? j.finishedAt.toISOString() : null,
    rows: j.rows,
    error: j.error,
    progress: {
      shards_done: j.progress.shardsDone ?? null,
      shards_total: j.progress.shardsTotal ?? null,
      ...(j.progress.rowsScored !== undefined
        ? { rows_scored: j.progress.rowsScored, rows_rejected: j.progress.rowsRejected ?? 0 }
        : {}),
      ...(j.progress.timedOut ? { timed_out: true } : {}),
      ...(j.progress.hitCapReached ? { hit_cap_reached: true } : {}),
      ...(fraction !== undefined ? { fraction } : {}),
      ...(j.progress.stage ? { stage: j.progress.stage } : {}),
    },
  };
}

/** Temporal's terminal states → the legacy status a job in that state must show. */
const CLOSED_STATUS: Record<string, JobStatus | undefined> = {
  COMPLETED: 'SUCCESS',
  FAILED: 'FAILURE',
  TERMINATED: 'FAILURE',
  TIMED_OUT: 'FAILURE',
  CANCELLED: 'REVOKED',
};

/** Creates the job service. */
export function createJobService(deps: JobServiceDeps) {
  const { jobs } = deps;
  const results = createResultCache(deps.objects, deps.resultCacheBytes);
  // Filtered views of cached results: an index array per filter, 5 bytes a row.
  const views = createLru<ResultView>({
    name: 'job_result_views',
    maxBytes: 64 * 2 ** 20,
    maxEntries: 256,
    size: (v) => v.indices.byteLength + v.inRange.byteLength,
  });
  const queues: JobQueues = {
    scan: taskQueue(deps.taskQueuePrefix, 'scan'),
    export: taskQueue(deps.taskQueuePrefix, 'export'),
  };

  async function own(accountId: string, jobName: string): Promise<JobRecord> {
    if (!JOB_NAME_PATTERN.test(jobName)) throw notFound(`job ${JSON.stringify(jobName.slice(0, 100))}`);
    const job = await jobs.get(jobName, accountId);
    if (!job) throw notFound(`job ${jobName}`);
    return job;
  }

  /**
   * Reconciles a non-final job with its workflow: a workflow that closed without recording its
   * outcome (terminated, timed out, crashed before bookkeeping) must not leave the job pending.
   */
  async function reconcile(job: JobRecord): Promise<JobRecord> {
    if (FINAL_JOB_STATUSES.includes(job.status)) return job;
    try {
      const d = await deps.workflows.getHandle(job.id).describe();
      const closed = CLOSED_STATUS[d.status.name];
      if (!closed) return job;
      if (closed === 'SUCCESS') return (await jobs.get(job.id)) ?? job; // the workflow recorded it
      return (
        (await jobs.update(job.id, {
          status: closed,
          error: closed === 'FAILURE' ? `job ${d.status.name.toLowerCase()}` : undefined,
        })) ?? job
      );
    } catch (err) {
      if ((err as Error).name === 'WorkflowNotFoundError' && Date.now() - job.createdAt.getTime() > 60_000) {
        return (await jobs.update(job.id, { status: 'FAILURE', error: 'job was never started' })) ?? job;
      }
      deps.log.warn({ err, job: job.id }, 'could not describe job workflow');
      return job;
    }
  }

  return {
    /** Validates the query, records the job and starts its workflow; returns the job name. */
    async submit(accountId: string, req: SubmitRequest): Promise<string> {
      if (!Number.isInteger(req.k) || req.k < 1)
        throw validationError(['query', 'n_neighbors'], 'must be at least 1');
      if (req.k > MAX_JOB_NEIGHBORS)
        throw validationError(
          ['query', 'n_neighbors'],
          `at most ${MAX_JOB_NEIGHBORS} neighbours per job (got ${req.k})`,
          'value_error.too_large',
        );
      const parsed = parseMolecule(await getRDKit(), req.smiles);
      if ('error' in parsed)
        throw invalidSmiles(['query', 'search_input'], req.smiles, `SMILES (${parsed.error})`);
      const jobName = newJobName();
      const params = {
        search_input: req.smiles,
        canonical_smiles: parsed.canonicalSmiles,
        search_type: req.searchType,
        search_quality: req.searchQuality,
        db_names: req.dbNames,
        n_neighbors: req.k,
        include_properties: req.includeProperties,
      };
      await jobs.create({ id: jobName, accountId, kind: 'molsearch', params });
      const metric3d = req.searchType === 'espsim_electrostatic' ? 'esp' : 'shape';
      const input: MolsearchJobInput = {
        jobName,
        smiles: req.smiles,
        dbNames: req.dbNames,
        k: req.k,
        queues,
        concurrency: deps.scanConcurrency,
        threeD: (THREE_D_TYPES as readonly string[]).includes(req.searchType)
          ? {
              metric: metric3d,
              // Per shard, as the synchronous search's first stage; very_accurate (Infinity) scores every row.
              shortlist: Number.isFinite(shortlistSize(req.searchQuality, req.k, metric3d))
                ? shortlistSize(req.searchQuality, req.k, metric3d)
                : 0,
              chem3dQueue: chem3dQueue(deps.taskQueuePrefix, 'query'),
              query: req.query3d && moleculeToBase64(req.query3d),
            }
          : undefined,
      };
      try {
        await deps.workflows.start(JOB_WORKFLOWS.molsearch, {
          workflowId: jobName,
          taskQueue: taskQueue(deps.taskQueuePrefix, 'orchestration'),
          args: [input],
        });
      } catch (err) {
        await jobs.update(jobName, { status: 'FAILURE', error: 'the job could not be started' });
        throw new DomainError('unavailable', 'the job service is unavailable; retry later', { cause: err });
      }
      deps.log.info({ job: jobName, k: req.k, dbs: req.dbNames }, 'job submitted');
      return jobName;
    },

    async status(accountId: string, jobName: string): Promise<JobStatus> {
      return (await reconcile(await own(accountId, jobName))).status;
    },

    async info(accountId: string, jobName: string): Promise<JobView> {
      return toView(await reconcile(await own(accountId, jobName)));
    },

    async list(accountId: string): Promise<JobView[]> {
      return (await jobs.list(accountId)).map(toView);
    },

    /** Cancels the workflow (its activities stop at their next heartbeat) and marks the job REVOKED. */
    async revoke(accountId: string, jobName: string): Promise<JobStatus> {
      const job = await own(accountId, jobName);
      if (FINAL_JOB_STATUSES.includes(job.status)) return job.status;
      try {
        await deps.workflows.getHandle(jobName).cancel();
      } catch (err) {
        deps.log.warn({ err, job: jobName }, 'cancel of job workflow failed');
      }
      return (
        (await jobs.update(jobName, { status: 'REVOKED', error: 'revoked by the user' }))?.status ?? 'REVOKED'
      );
    },

    /** The owned, successful job's decoded result (cached). */
    async result(accountId: string, jobName: string): Promise<{ job: JobRecord; result?: JobResult }> {
      const job = await reconcile(await own(accountId, jobName));
      if (job.status !== 'SUCCESS' || !job.resultKey) return { job };
      return { job, result: await results.get(job.resultKey) };
    },

    /**
     * The rows of one page of a job: the decoded result and the filtered view (cached per
     * filter, so each page only slices and serialises), or none while the job runs. A failed or
     * revoked job is a 409 with the reason (so polling clients stop).
     */
    async pageSource(
      accountId: string,
      jobName: string,
      req: PageRequest,
    ): Promise<{ result: JobResult; view: ResultView } | undefined> {
      const { job, result } = await this.result(accountId, jobName);
      if (job.status === 'FAILURE' || job.status === 'REVOKED') {
        throw new DomainError(
          'conflict',
          `job ${jobName} ended in ${job.status}${job.error ? `: ${job.error}` : ''}`,
        );
      }
      if (!result) return undefined;
      const vkey = `${job.resultKey}|${req.simTh}|${req.dMin}|${req.dMax}|${JSON.stringify(req.propRanges)}`;
      let view = views.get(vkey);
      if (!view) {
        view = resultView(result, req);
        views.set(vkey, view);
      }
      return { result, view };
    },

    /** One page of a job (the empty page while it runs); see pageSource. */
    async page(accountId: string, jobName: string, req: PageRequest): Promise<Page> {
      const src = await this.pageSource(accountId, jobName, req);
      return src
        ? buildPage(src.result, req, src.view)
        : emptyPage(req.includeProperties, req.includeSynthons);
    },

    /** The same page as JSON text, serialised straight from the result's columns. */
    async pageJson(accountId: string, jobName: string, req: PageRequest): Promise<string> {
      const src = await this.pageSource(accountId, jobName, req);
      return src
        ? pageJson(src.result, req, src.view)
        : JSON.stringify(emptyPage(req.includeProperties, req.includeSynthons));
    },
  };
}

export type JobService = ReturnType<typeof createJobService>;
