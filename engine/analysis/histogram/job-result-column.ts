/**
 * Histogram columns of a job's result (engine/export/job-result.ts): `similarity` and the 33
 * property columns, null properties being NaN there (so they count as missing).
 */
import { PROPERTY_KEYS, type JobResult } from '../../export/job-result.ts';
import { AnalysisError } from '../errors.ts';

/** Columns /histograms accepts for a job's results. */
export const JOB_HISTOGRAM_COLUMNS: readonly string[] = ['similarity', ...PROPERTY_KEYS];

/** The values of a result column; throws `invalid_parameter` on `field` listing the allowed names. */
export function jobResultColumn(result: JobResult, name: string, field = 'columns'): Float64Array {
  if (name === 'similarity') return result.similarity;
  const i = PROPERTY_KEYS.indexOf(name);
  if (i < 0)
    throw new AnalysisError(
      'invalid_parameter',
      field,
      `${JSON.stringify(name)} is not a result column; allowed: ${JOB_HISTOGRAM_COLUMNS.join(', ')}`,
    );
  return result.props[i];
}
