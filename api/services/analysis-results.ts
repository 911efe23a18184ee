/**
 * Analysis of stored data: histograms over a finished job's results (similarity and the property
 * columns) and over a whole database's numeric columns (cached per database release, column and
 * bins), and the SMILES of a job's top rows for /visualize. Counting bins is linear in the rows
 * (at most 100,000 per job), cheap next to decoding the result, so it stays in the service.
 */
import { validationError } from '../../platform/errors.ts';
import {
  analysisToDomain,
  histogramOf,
  jobResultColumn,
  type Histogram,
  type HistogramSpec,
} from '../../engine/analysis/index.ts';
import type { JobService } from './jobs.ts';
import type { SearchService } from './search-service.ts';

export interface AnalysisResultsDeps {
  search: SearchService;
  /** Absent in deployments (and tests) without durable jobs: job_name is then a 422. */
  jobs?: JobService;
}

/** A histogram spec from `bins` or `edges`; similarity bins span [0, 1]. */
export function histogramSpec(bins: number, edges: number[] | undefined, column?: string): HistogramSpec {
  if (edges?.length) return { edges };
  return column === 'similarity' ? { bins, range: [0, 1] } : { bins };
}

function domain<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw analysisToDomain(err);
  }
}

export function createAnalysisResults(deps: AnalysisResultsDeps) {
  const cache = new Map<string, Histogram>();

  async function finished(accountId: string, jobName: string) {
    if (!deps.jobs)
      throw validationError(
        ['query', 'job_name'],
        'jobs are not available on this deployment',
        'value_error.unavailable',
      );
    const { job, result } = await deps.jobs.result(accountId, jobName);
    if (!result)
      throw validationError(
        ['query', 'job_name'],
        `job ${jobName} is ${job.status}; its results are not available`,
        'value_error.not_finished',
      );
    return result;
  }

  return {
    /** The SMILES of a finished job's first `max` rows (best first). */
    async jobSmiles(accountId: string, jobName: string, max: number): Promise<string[]> {
      return (await finished(accountId, jobName)).smiles.slice(0, max);
    },

    /** Histograms of `columns` over a job's rows at or above `simTh`. */
    async jobHistograms(
      accountId: string,
      req: { jobName: string; columns: string[]; bins: number; edges?: number[]; simTh?: number },
    ) {
      const result = await finished(accountId, req.jobName);
      const keep: number[] = [];
      for (let i = 0; i < result.rows; i++)
        if (req.simTh === undefined || result.similarity[i] >= req.simTh) keep.push(i);
      const histograms: Record<string, Histogram> = {};
      for (const c of req.columns) {
        const col = domain(() => jobResultColumn(result, c, 'columns'));
        const values = Float64Array.from(keep, (i) => col[i]);
        histograms[c] = domain(() => histogramOf(values, histogramSpec(req.bins, req.edges, c)));
      }
      return { job_name: req.jobName, rows: keep.length, histograms };
    },

    /** Histograms of numeric catalog columns over a whole database (cached). */
    propertyHistograms(req: { dbName: string; properties: string[]; bins: number; edges?: number[] }) {
      const db = deps.search.databases().find((d) => d.id === req.dbName);
      if (!db)
        throw validationError(
          ['query', 'db_name'],
          `unknown database ${JSON.stringify(req.dbName)}; available: ${deps.search
            .databases()
            .map((d) => d.id)
            .join(', ')}`,
        );
      const histograms: Record<string, Histogram> = {};
      for (const p of req.properties) {
        const key = `${db.id}|${db.release}|${p}|${req.bins}|${req.edges?.join(',') ?? ''}`;
        let h = cache.get(key);
        if (!h) {
          const values = deps.search.propertyValues(db.id, p)!;
          h = domain(() => histogramOf(values, histogramSpec(req.bins, req.edges)));
          cache.set(key, h);
          while (cache.size > 256) cache.delete(cache.keys().next().value!);
        }
        histograms[p] = h;
      }
      return { db_name: db.id, rows: db.molecules, histograms };
    },
  };
}

export type AnalysisResults = ReturnType<typeof createAnalysisResults>;
