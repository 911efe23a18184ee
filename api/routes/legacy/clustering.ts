/**
 * GET /cluster (Butina, k-means, k-medoids with a seed; the clustering is stored) and
 * GET /nearest_cluster (new molecules against a stored clustering), docs/operations.md.
 */
import { Type } from '@sinclair/typebox';
import type { App } from '../../types.ts';
import { ANALYSIS_LIMITS, type AnalysisService } from '../../services/analysis.ts';
import { ex, JobStartedSchema, nonEmptyList, SearchTypeParam, SmilesList, TAGS } from './analysis-params.ts';
import { validationError } from '../../../platform/errors.ts';

const NullableString = Type.Union([Type.String(), Type.Null()]);

const ClusterSchema = Type.Object({
  clustering_id: Type.String({ description: 'For /nearest_cluster' }),
  method: Type.String(),
  metric: Type.String(),
  threshold: Type.Optional(Type.Number()),
  n_clusters: Type.Integer(),
  labels: Type.Array(Type.Union([Type.Integer(), Type.Null()]), { description: 'Cluster of each input' }),
  clusters: Type.Array(
    Type.Object({
      cluster: Type.Integer(),
      size: Type.Integer(),
      representative: Type.Object({ index: Type.Integer(), smiles: Type.String() }),
      members: Type.Array(Type.Integer(), { description: 'Input indices; Butina: the centroid first' }),
    }),
  ),
  errors: Type.Array(NullableString),
});

/** The clustering routes over the analysis service. */
export function registerClusterRoutes(app: App, analysis: AnalysisService): void {
  app.get(
    '/cluster',
    {
      schema: {
        tags: TAGS.clustering,
        summary: 'Cluster molecules: Butina on Tanimoto, k-means or k-medoids (seeded)',
        description:
          `Up to ${ANALYSIS_LIMITS.syncClusterMolecules} molecules answered at once; an uploaded file (input_file) ` +
          `of more rows runs as a job (up to ${ANALYSIS_LIMITS.maxClusterMolecules}, k-medoids ${ANALYSIS_LIMITS.maxMedoidMolecules}): ` +
          '{status: PENDING, job_name}; /analysis_result then gives the clustering_id and clusters.json.',
        querystring: Type.Object({
          search_input: Type.Optional(
            SmilesList(`Molecules, repeated; 1 to ${ANALYSIS_LIMITS.syncClusterMolecules} (or input_file)`),
          ),
          input_file: Type.Optional(
            Type.String({ description: 'An uploaded .csv/.tsv/.smi (a job above the limit)' }),
          ),
          smiles_col: Type.String({ default: 'SMILES', description: 'SMILES column of input_file' }),
          method: Type.String({ default: 'butina', description: 'butina, kmeans or kmedoids' }),
          threshold: Type.Number({
            default: 0.4,
            description: 'Butina distance threshold (1 - Tanimoto), 0-1',
          }),
          n_clusters: Type.Integer({ default: 8, description: 'k-means / k-medoids: clusters (1 to n)' }),
          seed: Type.Integer({ default: 0, description: 'k-means++ / k-medoids++ seed' }),
          embedding_type: Type.String({ default: 'bits', description: 'k-means: bits or counts' }),
          metric: Type.String({ default: 'tanimoto', description: 'k-medoids: tanimoto or euclidean' }),
          search_type: SearchTypeParam,
        }),
        response: {
          202: JobStartedSchema,
          200: ex(ClusterSchema, {
            clustering_id: 'clu_01JD6N0F7W5XQ8ZB9V2T3K4M5P',
            method: 'butina',
            metric: 'tanimoto',
            threshold: 0.4,
            n_clusters: 2,
            labels: [0, 0, 1],
            clusters: [
              { cluster: 0, size: 2, representative: { index: 1, smiles: 'CCO' }, members: [1, 0] },
              { cluster: 1, size: 1, representative: { index: 2, smiles: 'c1ccccc1' }, members: [2] },
            ],
            errors: [null, null, null],
          }),
        },
      },
    },
    async (request, reply) => {
      const q = request.query;
      const hasList = (q.search_input ?? []).some((x) => x.trim() !== '');
      if (hasList === Boolean(q.input_file))
        throw validationError(
          ['query', 'search_input'],
          'give either search_input or input_file',
          'value_error.empty_input',
        );
      let smiles: string[];
      const jobs = analysis.jobModeIfAny();
      if (q.input_file && jobs) {
        smiles = (await jobs.readFile(request.account.id, q.input_file, q.smiles_col)).smiles;
        if (smiles.length > ANALYSIS_LIMITS.syncClusterMolecules) {
          const params = {
            method: q.method,
            threshold: q.threshold,
            nClusters: q.n_clusters,
            seed: q.seed,
            embeddingType: q.embedding_type,
            metric: q.metric,
            searchType: q.search_type,
          };
          return reply.code(202).send(await jobs.cluster(request.account.id, smiles, params));
        }
      } else if (q.input_file) {
        smiles = (await analysis.readFile(request.account.id, q.input_file, q.smiles_col)).smiles;
      } else smiles = nonEmptyList(q.search_input, 'search_input', ANALYSIS_LIMITS.syncClusterMolecules);
      return analysis.cluster(request.account.id, {
        op: 'cluster',
        smiles,
        method: q.method,
        threshold: q.threshold,
        nClusters: q.n_clusters,
        seed: q.seed,
        embeddingType: q.embedding_type,
        metric: q.metric,
        searchType: q.search_type,
      });
    },
  );

  app.get(
    '/nearest_cluster',
    {
      schema: {
        tags: TAGS.clustering,
        summary: 'Place new molecules in one of your stored clusterings',
        querystring: Type.Object({
          clustering_id: Type.String({ description: 'From /cluster' }),
          search_input: SmilesList(`Molecules, repeated; 1 to ${ANALYSIS_LIMITS.syncMolecules}`),
        }),
        response: {
          200: ex(
            Type.Object({
              clustering_id: Type.String(),
              method: Type.String(),
              cluster: Type.Array(Type.Union([Type.Integer(), Type.Null()])),
              similarity: Type.Optional(Type.Array(Type.Union([Type.Number(), Type.Null()]))),
              distance: Type.Optional(Type.Array(Type.Union([Type.Number(), Type.Null()]))),
              within: Type.Array(Type.Union([Type.Boolean(), Type.Null()])),
              errors: Type.Array(NullableString),
            }),
            {
              clustering_id: 'clu_01JD6N0F7W5XQ8ZB9V2T3K4M5P',
              method: 'butina',
              cluster: [0, 1],
              similarity: [0.71, 0.33],
              within: [true, false],
              errors: [null, null],
            },
          ),
        },
      },
    },
    async (request) => {
      const q = request.query;
      const smiles = nonEmptyList(q.search_input, 'search_input', ANALYSIS_LIMITS.syncMolecules);
      const r = await analysis.nearestCluster(request.account.id, q.clustering_id, smiles);
      return {
        clustering_id: q.clustering_id,
        method: r.method,
        cluster: r.cluster,
        [r.metric === 'tanimoto' ? 'similarity' : 'distance']: r.score,
        within: r.within,
        errors: r.errors,
      };
    },
  );
}
