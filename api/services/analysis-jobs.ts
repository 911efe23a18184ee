/**
 * Analysis jobs as the API sees them (docs/operations.md, "Jobs"): an operation whose input is
 * above its synchronous limit is stored in the object store, recorded as a legacy job (kind
 * `analysis_<op>`: /job_status, /job_info, /user_jobs and /revoke_job work on it) and run by
 * analysisJobWorkflow; /analysis_result answers the summary and /analysis_result_file the files.
 */
import type { WorkflowClient } from '@temporalio/client';
import { DomainError, notFound, validationError } from '../../platform/errors.ts';
import type { Logger } from '../../platform/logger.ts';
import type { ObjectStore } from '../../platform/object-store/index.ts';
import type { Jobs } from '../../store/jobs.ts';
import {
  ANALYSIS_JOB_WORKFLOW,
  analysisJobKeys,
  taskQueue,
  type AnalysisJobInput,
  type AnalysisJobRequest,
} from '../../workflows/contracts.ts';
import {
  ANALYSIS_LIMITS,
  AnalysisError,
  analysisToDomain,
  CLUSTER_METHODS,
  embeddingKind,
  mapMethod,
  maxMapMolecules,
} from '../../engine/analysis/index.ts';
import { outputPath, readInputSmiles } from './analysis-files.ts';
import { userFileKey } from './jobs-files.ts';
import { newJobName, ulid } from './jobs-ids.ts';
import type { JobService, JobView } from './jobs.ts';

/** What a route answers when it started a job instead of answering at once. */
export interface JobStarted {
  status: 'PENDING';
  job_name: string;
  mode: 'job';
  message: string;
}

const FILE_NAME = /^[\w.-]{1,64}$/;

/** Checks a clustering method as the engine does (its 422 lists the methods). */
function oneOfMethods(method: string): void {
  if (!(CLUSTER_METHODS as readonly string[]).includes(method))
    throw new AnalysisError(
      'invalid_parameter',
      'method',
      `${JSON.stringify(method)} is not a method; allowed: ${CLUSTER_METHODS.join(', ')}`,
    );
}

export function createAnalysisJobService(deps: {
  jobs: Jobs;
  jobService: JobService;
  objects: ObjectStore;
  workflows: WorkflowClient;
  taskQueuePrefix: string;
  log: Logger;
}) {
  return {
    /**
     * Stores the request, records the job and starts its workflow. `params` are what /job_info
     * shows (small: counts and names, never the molecule lists).
     */
    async submit(
      accountId: string,
      request: AnalysisJobRequest,
      params: Record<string, unknown>,
    ): Promise<JobStarted> {
      const jobName = newJobName();
      await deps.objects.put(analysisJobKeys.request(jobName), JSON.stringify(request), 'application/json');
      await deps.jobs.create({ id: jobName, accountId, kind: `analysis_${request.op}`, params });
      const input: AnalysisJobInput = { jobName, scanQueue: taskQueue(deps.taskQueuePrefix, 'scan') };
      try {
        await deps.workflows.start(ANALYSIS_JOB_WORKFLOW, {
          workflowId: jobName,
          taskQueue: taskQueue(deps.taskQueuePrefix, 'orchestration'),
          args: [input],
        });
      } catch (err) {
        await deps.jobs.update(jobName, { status: 'FAILURE', error: 'the job could not be started' });
        throw new DomainError('unavailable', 'the job service is unavailable; retry later', { cause: err });
      }
      deps.log.info({ job: jobName, op: request.op }, 'analysis job submitted');
      return {
        status: 'PENDING',
        job_name: jobName,
        mode: 'job',
        message: `above the synchronous limit: poll /job_status?job_name=${jobName}, then GET /analysis_result?job_name=${jobName}`,
      };
    },

    /** A similarity matrix job: rows × columns up to ANALYSIS_LIMITS.maxMatrixCells. */
    matrix(
      accountId: string,
      req: { list1: string[]; list2?: string[]; searchType: string },
      field2: string,
    ) {
      const cells = req.list1.length * (req.list2 ?? req.list1).length;
      if (cells > ANALYSIS_LIMITS.maxMatrixCells)
        throw validationError(
          ['query', field2],
          `at most ${ANALYSIS_LIMITS.maxMatrixCells} matrix cells (rows × columns) in a job, got ${cells}`,
          'value_error.too_large',
        );
      return this.submit(
        accountId,
        { op: 'matrix', ...req },
        { rows: req.list1.length, cols: (req.list2 ?? req.list1).length, search_type: req.searchType },
      );
    },

    /** Database similarity of a large list or of a whole database (source_db) against dbNames. */
    databaseSimilarity(
      accountId: string,
      req: { smiles?: string[]; sourceDb?: string; dbNames: string[]; bins: number },
    ) {
      if (req.smiles && req.smiles.length > ANALYSIS_LIMITS.maxDatabaseSimilarityMolecules)
        throw validationError(
          ['query', 'input_file'],
          `at most ${ANALYSIS_LIMITS.maxDatabaseSimilarityMolecules} molecules, got ${req.smiles.length}`,
          'value_error.too_large',
        );
      return this.submit(
        accountId,
        { op: 'database_similarity', ...req },
        {
          db_names: req.dbNames,
          bins: req.bins,
          ...(req.sourceDb ? { source_db: req.sourceDb } : { molecules: req.smiles?.length }),
        },
      );
    },

    /** Morgan embeddings of a file above the synchronous limit, written to the caller's area by the job. */
    embeddingsFile(
      accountId: string,
      req: { input: string; smiles: string[]; destFolder: string; searchType: string; kind: string },
    ) {
      try {
        embeddingKind(req.kind);
      } catch (err) {
        throw analysisToDomain(err);
      }
      const base = outputPath(req.destFolder, req.input, `_${req.searchType}_embeddings`);
      const npyPath = `${base}.npy`;
      const indexPath = `${base}_index.csv`;
      return this.submit(
        accountId,
        {
          op: 'embeddings_file',
          accountId,
          smiles: req.smiles,
          kind: req.kind,
          searchType: req.searchType,
          inputFile: req.input,
          destFolder: req.destFolder,
          npyPath,
          indexPath,
          npyKey: userFileKey(accountId, npyPath),
          indexKey: userFileKey(accountId, indexPath),
        },
        {
          input_file: req.input,
          rows: req.smiles.length,
          embedding_type: req.kind,
          output_files: [npyPath, indexPath],
        },
      );
    },

    /** A clustering of more molecules than the synchronous limit; stored as a clustering like /cluster's. */
    cluster(accountId: string, smiles: string[], params: Record<string, unknown> & { method: string }) {
      const max =
        params.method === 'kmedoids'
          ? ANALYSIS_LIMITS.maxMedoidMolecules
          : ANALYSIS_LIMITS.maxClusterMolecules;
      if (smiles.length > max)
        throw validationError(
          ['query', 'input_file'],
          `at most ${max} molecules for a ${params.method} clustering job, got ${smiles.length}`,
          'value_error.too_large',
        );
      try {
        oneOfMethods(params.method);
      } catch (err) {
        throw analysisToDomain(err);
      }
      const clusteringId = `clu_${ulid()}`;
      return this.submit(
        accountId,
        {
          op: 'cluster',
          smiles,
          params: { ...params, maxMolecules: max },
          clusteringId,
          modelKey: userFileKey(accountId, `clusterings/${clusteringId}.json`),
        },
        { molecules: smiles.length, method: params.method, clustering_id: clusteringId },
      );
    },

    /** 2D map of a file above the synchronous limit: the coordinates CSV in the caller's area. */
    visualizeFile(
      accountId: string,
      req: {
        input: string;
        smiles: string[];
        destFolder: string;
        params: Record<string, unknown> & { method: string };
      },
    ) {
      try {
        mapMethod(req.params.method);
      } catch (err) {
        throw analysisToDomain(err);
      }
      const max = maxMapMolecules(req.params.method);
      if (req.smiles.length > max)
        throw validationError(
          ['query', 'input_file'],
          `at most ${max} molecules for a ${req.params.method} map job, got ${req.smiles.length}`,
          'value_error.too_large',
        );
      const csvPath = outputPath(req.destFolder, req.input, `_${req.params.method}_coords.csv`);
      return this.submit(
        accountId,
        {
          op: 'visualize_file',
          smiles: req.smiles,
          params: req.params,
          inputFile: req.input,
          destFolder: req.destFolder,
          csvPath,
          csvKey: userFileKey(accountId, csvPath),
        },
        {
          input_file: req.input,
          rows: req.smiles.length,
          visualisation_method: req.params.method,
          output_files: [csvPath],
        },
      );
    },

    /** The SMILES of an uploaded file for a job (up to ANALYSIS_LIMITS.maxFileMolecules rows). */
    readFile: (accountId: string, inputFile: string, smilesCol: string, field = 'input_file') =>
      readInputSmiles(deps.objects, accountId, inputFile, smilesCol, ANALYSIS_LIMITS.maxFileMolecules).catch(
        (err: unknown) => {
          // the same checks name the route's own parameter (input_file_1, input_file_2)
          if (err instanceof DomainError && field !== 'input_file')
            err.issues.forEach((i) => i.loc[1] === 'input_file' && (i.loc[1] = field));
          throw err;
        },
      ),

    /** The job's state and, once it succeeded, its summary (files listed by name). */
    async result(accountId: string, jobName: string): Promise<JobView & { result: unknown }> {
      const view = await deps.jobService.info(accountId, jobName);
      if (!view.kind.startsWith('analysis_'))
        throw validationError(
          ['query', 'job_name'],
          `job ${jobName} is not an analysis job; page it with /get_molsearch_page`,
        );
      if (view.status !== 'SUCCESS') return { ...view, result: null };
      const bytes = await deps.objects.getBytes(analysisJobKeys.result(jobName));
      return { ...view, result: JSON.parse(Buffer.from(bytes).toString('utf8')) as unknown };
    },

    /** One result file of a finished analysis job (e.g. matrix.npy). */
    async file(accountId: string, jobName: string, name: string): Promise<Uint8Array> {
      const r = await this.result(accountId, jobName);
      if (r.status !== 'SUCCESS')
        throw new DomainError('conflict', `job ${jobName} is ${r.status}${r.error ? `: ${r.error}` : ''}`);
      const files = ((r.result as { files?: string[] }).files ?? []) as string[];
      if (!FILE_NAME.test(name) || !files.includes(name))
        throw notFound(
          `file ${JSON.stringify(name.slice(0, 64))} of job ${jobName} (files: ${files.join(', ') || 'none'})`,
        );
      return deps.objects.getBytes(analysisJobKeys.file(jobName, name));
    },
  };
}

export type AnalysisJobService = ReturnType<typeof createAnalysisJobService>;
