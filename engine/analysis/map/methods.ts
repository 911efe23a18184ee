/**
 * The 2D map methods (`visualisation_method`). t-SNE is not offered: the npm t-SNE packages are
 * unmaintained (tsne-js: last change 2016, on the old ndarray/cwise stack) or single-person forks
 * with little use (@keckelt/tsne), and writing our own exact t-SNE is out of scope; the API
 * answers 422 listing these methods.
 */
import { AnalysisError } from '../errors.ts';

export const MAP_METHODS = ['pca', 'umap'] as const;
export type MapMethod = (typeof MAP_METHODS)[number];

/** Checks `visualisation_method`; throws `unknown_metric` naming the allowed methods. */
export function mapMethod(value: string, field = 'visualisation_method'): MapMethod {
  if ((MAP_METHODS as readonly string[]).includes(value)) return value as MapMethod;
  throw new AnalysisError(
    'unknown_metric',
    field,
    `${JSON.stringify(value)} is not a map method; allowed: ${MAP_METHODS.join(', ')}` +
      (value === 'tsne' ? ' (t-SNE is not offered: no maintained JavaScript implementation)' : ''),
  );
}
