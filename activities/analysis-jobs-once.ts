/**
 * The analysis jobs that are not split into chunks (clustering, 2D maps of large files): one
 * computation over every molecule on an analysis thread, heartbeating meanwhile, and the files it
 * leaves (the stored clustering and clusters.json, or the coordinates CSV).
 */
import { ApplicationFailure } from '@temporalio/common';
import { DomainError } from '../platform/errors.ts';
import type { ObjectStore } from '../platform/object-store/index.ts';
import {
  maxMapMolecules,
  type AnalysisPool,
  type ClusterParams,
  type MapAnswer,
  type MapParams,
} from '../engine/analysis/index.ts';
import { csvCell } from '../engine/export/npy.ts';
import { beat, cancellationSignal } from './jobs.ts';
import {
  analysisJobKeys as keys,
  INVALID_INPUT_FAILURE,
  type AnalysisJobRequest,
} from '../workflows/contracts.ts';

const invalid = (msg: string) =>
  ApplicationFailure.create({ message: msg, type: INVALID_INPUT_FAILURE, nonRetryable: true });

export type OnceRequest = Extract<AnalysisJobRequest, { op: 'cluster' | 'visualize_file' }>;

/**
 * Clustering or map of every molecule at the job limits, on an analysis thread: this event loop
 * stays free to heartbeat while it runs (minutes for large inputs). An input error fails the job.
 */
export async function analysisOnce(pool: AnalysisPool, req: OnceRequest): Promise<unknown> {
  // Cancelled (the job, or this worker shutting down): the thread's work stops, not finishes.
  const ro = { signal: cancellationSignal(), stopOnAbort: true };
  try {
    if (req.op === 'cluster')
      return await pool.run(
        {
          op: 'cluster',
          smiles: req.smiles,
          ...(req.params as unknown as ClusterParams),
        },
        ro,
      );
    const p = req.params as unknown as MapParams;
    return await pool.run(
      {
        op: 'map',
        smiles: req.smiles,
        field: 'input_file',
        ...p,
        maxMolecules: maxMapMolecules(p.method),
      },
      ro,
    );
  } catch (err) {
    if (err instanceof DomainError && err.code === 'validation_error')
      throw invalid(err.issues.map((i) => `${i.loc.slice(1).join('.')}: ${i.msg}`).join('; ') || err.message);
    throw err;
  }
}

/** Heartbeats every 10 s while `work` runs (its computation is on another thread). */
export async function whileBeating<T>(work: () => Promise<T>): Promise<T> {
  const timer = setInterval(() => beat({ running: true }), 10_000);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}

/** Writes what a clustering or map job leaves: the stored clustering or the coordinates CSV. */
export async function finishOnce(objects: ObjectStore, job: string, req: OnceRequest, answer: unknown) {
  if (req.op === 'cluster') {
    const { model, ...rest } = answer as { model: string; method: string; clusters: unknown[] };
    await objects.put(req.modelKey, model, 'application/json');
    await objects.put(keys.file(job, 'clusters.json'), JSON.stringify(rest), 'application/json');
    return {
      op: 'cluster',
      clustering_id: req.clusteringId,
      method: rest.method,
      n_clusters: rest.clusters.length,
      molecules: req.smiles.length,
      files: ['clusters.json'],
    };
  }
  const r = answer as MapAnswer;
  const csv = ['smiles,canonical_smiles,x,y,error'].concat(
    req.smiles.map((s, i) =>
      [s, r.smiles[i], r.coordinates[i]?.[0], r.coordinates[i]?.[1], r.errors[i]].map(csvCell).join(','),
    ),
  );
  await objects.put(req.csvKey, csv.join('\r\n') + '\r\n', 'text/csv; charset=utf-8');
  return {
    op: 'visualize_file',
    input_file: req.inputFile,
    dest_folder: req.destFolder,
    visualisation_method: r.visualisation_method,
    count: req.smiles.length,
    errors: r.errors.filter((e) => e !== null).length,
    explained_variance_ratio: r.explained_variance_ratio,
    output_files: [req.csvPath],
  };
}
