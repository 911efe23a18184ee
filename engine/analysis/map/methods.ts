/**
 * The 2D map methods (`visualisation_method`): exact PCA, seeded UMAP (umap-js), seeded exact
 * t-SNE (our own kernel, map/tsne.ts, since no maintained permissive npm package has it).
 */
import { AnalysisError } from '../errors.ts';

export const MAP_METHODS = ['pca', 'umap', 'tsne'] as const;
export type MapMethod = (typeof MAP_METHODS)[number];

/** Checks `visualisation_method`; throws `unknown_metric` naming the allowed methods. */
export function mapMethod(value: string, field = 'visualisation_method'): MapMethod {
  if ((MAP_METHODS as readonly string[]).includes(value)) return value as MapMethod;
  throw new AnalysisError(
    'unknown_metric',
    field,
    `${JSON.stringify(value)} is not a map method; allowed: ${MAP_METHODS.join(', ')}`,
  );
}
