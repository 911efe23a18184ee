/**
 * GET /visualize (alias /visualise) and /visualize_file: 2D map coordinates (PCA by default, seeded
 * UMAP) of a list, of a finished job's top rows, or of an uploaded file (docs/operations.md).
 */
import { Type } from '@sinclair/typebox';
import type { App } from '../../types.ts';
import { validationError } from '../../../platform/errors.ts';
import { ANALYSIS_LIMITS, syncMapLimit, type AnalysisService } from '../../services/analysis.ts';
import { MAX_FILE_MOLECULES } from '../../services/analysis-files.ts';
import { ex, JobStartedSchema, nonEmptyList, SearchTypeParam, SmilesList, TAGS } from './analysis-params.ts';

const NullableString = Type.Union([Type.String(), Type.Null()]);

const mapParams = {
  search_type: SearchTypeParam,
  visualisation_method: Type.String({
    default: 'pca',
    description: 'pca (exact, scikit-learn equal), umap (seeded) or tsne (exact, seeded, scikit-learn steps)',
  }),
  embedding_type: Type.String({ default: 'bits', description: 'bits or counts' }),
  seed: Type.Integer({ default: 0, description: 'UMAP / t-SNE seed' }),
  n_neighbors: Type.Integer({ default: 15, description: 'UMAP neighbours (2-100)' }),
  min_dist: Type.Number({ default: 0.1, description: 'UMAP min_dist (0-1)' }),
  n_epochs: Type.Optional(Type.Integer({ description: 'UMAP epochs (1-5000, default 200)' })),
  perplexity: Type.Number({ default: 30, description: 't-SNE perplexity (5-50, below the molecule count)' }),
  n_iter: Type.Integer({
    default: 1000,
    description: 't-SNE iterations (250-5000, 250 of them exaggerated)',
  }),
};

type MapQuery = {
  search_type: string;
  visualisation_method: string;
  embedding_type: string;
  seed: number;
  n_neighbors: number;
  min_dist: number;
  n_epochs?: number;
  perplexity: number;
  n_iter: number;
};
const mapOf = (q: MapQuery) => ({
  method: q.visualisation_method,
  searchType: q.search_type,
  embeddingType: q.embedding_type,
  seed: q.seed,
  nNeighbors: q.n_neighbors,
  minDist: q.min_dist,
  nEpochs: q.n_epochs,
  perplexity: q.perplexity,
  nIter: q.n_iter,
});

const MapSchema = ex(
  Type.Object({
    visualisation_method: Type.String(),
    search_type: Type.String(),
    smiles: Type.Array(NullableString, { description: 'Canonical SMILES (null when unparsable)' }),
    coordinates: Type.Array(Type.Union([Type.Array(Type.Number()), Type.Null()])),
    explained_variance_ratio: Type.Optional(Type.Array(Type.Number())),
    errors: Type.Array(NullableString),
  }),
  {
    visualisation_method: 'pca',
    search_type: 'morgan',
    smiles: ['CCO', 'CCN', 'c1ccccc1'],
    coordinates: [
      [-0.41, 0.12],
      [-0.38, 0.15],
      [0.79, -0.27],
    ],
    explained_variance_ratio: [0.21, 0.12],
    errors: [null, null, null],
  },
);

/** The map routes over the analysis service. */
export function registerMapRoutes(app: App, analysis: AnalysisService): void {
  const schema = {
    tags: TAGS.maps,
    summary: '2D map coordinates of molecules or of a job’s results (PCA default, UMAP, t-SNE)',
    description: `At most ${ANALYSIS_LIMITS.syncPcaMolecules} molecules by PCA, ${ANALYSIS_LIMITS.syncUmapMolecules} by UMAP, ${ANALYSIS_LIMITS.syncTsneMolecules} by t-SNE.`,
    querystring: Type.Object({
      search_input: Type.Optional(SmilesList('Molecules, repeated (or job_name)')),
      job_name: Type.Optional(Type.String({ description: 'A finished job: its top rows are mapped' })),
      max_molecules: Type.Optional(
        Type.Integer({
          description: 'Rows of the job mapped, best first (default 2,000; UMAP at most 1,000, t-SNE 500)',
        }),
      ),
      ...mapParams,
    }),
    response: { 200: MapSchema },
  };
  const handler = async (request: {
    account: { id: string };
    query: MapQuery & { search_input?: string[]; job_name?: string; max_molecules?: number };
  }) => {
    const q = request.query;
    const limit = syncMapLimit(q.visualisation_method);
    const hasList = (q.search_input ?? []).some((s) => s.trim() !== '');
    if (hasList === Boolean(q.job_name))
      throw validationError(
        ['query', 'search_input'],
        'give either search_input or job_name',
        'value_error.empty_input',
      );
    const maxMolecules = q.max_molecules ?? Math.min(2000, limit);
    if (!(maxMolecules >= 3 && maxMolecules <= limit))
      throw validationError(
        ['query', 'max_molecules'],
        `must be from 3 to ${limit}`,
        'value_error.invalid_parameter',
      );
    const smiles = hasList ? nonEmptyList(q.search_input, 'search_input', limit) : undefined;
    const r = await analysis.visualize(request.account.id, {
      smiles,
      jobName: q.job_name,
      maxMolecules,
      ...mapOf(q),
    });
    return { search_type: q.search_type, ...r };
  };
  app.get('/visualize', { schema }, handler);
  app.get('/visualise', { schema: { ...schema, summary: 'Alias of /visualize' } }, handler);

  app.get(
    '/visualize_file',
    {
      schema: {
        tags: TAGS.maps,
        summary: '2D map coordinates of an uploaded file, written to your file area as CSV',
        description:
          `Up to ${MAX_FILE_MOLECULES} molecules (t-SNE ${ANALYSIS_LIMITS.syncTsneMolecules}) answered when written; larger files run as a job ` +
          `(PCA up to ${ANALYSIS_LIMITS.maxFileMolecules} rows, UMAP ${ANALYSIS_LIMITS.maxUmapMolecules}, t-SNE ${ANALYSIS_LIMITS.maxTsneMolecules}): ` +
          '{status: PENDING, job_name}; /analysis_result then lists the CSV written to your area.',
        querystring: Type.Object({
          input_file: Type.String({ description: 'An uploaded .csv/.tsv (with smiles_col) or .smi file' }),
          smiles_col: Type.String({ default: 'SMILES' }),
          dest_folder: Type.String({ default: 'visualization_coords' }),
          ...mapParams,
        }),
        response: {
          202: JobStartedSchema,
          200: ex(Type.Object({}, { additionalProperties: true }), {
            status: 'SUCCESS',
            input_file: 'drugs.csv',
            dest_folder: 'visualization_coords',
            search_type: 'morgan',
            visualisation_method: 'pca',
            count: 150,
            errors: 0,
            explained_variance_ratio: [0.035, 0.029],
            output_files: ['visualization_coords/drugs_pca_coords.csv'],
          }),
        },
      },
    },
    async (request, reply) => {
      const q = request.query;
      const jobs = analysis.jobModeIfAny();
      const file = jobs ? await jobs.readFile(request.account.id, q.input_file, q.smiles_col) : undefined;
      // above the synchronous limit (and up to the method's job limit) the map is a job's work
      if (
        jobs &&
        file &&
        file.smiles.length > Math.min(MAX_FILE_MOLECULES, syncMapLimit(q.visualisation_method))
      )
        return reply.code(202).send(
          await jobs.visualizeFile(request.account.id, {
            input: file.input,
            smiles: file.smiles,
            destFolder: q.dest_folder,
            params: mapOf(q),
          }),
        );
      return analysis.visualizeFile(request.account.id, {
        inputFile: q.input_file,
        destFolder: q.dest_folder,
        smilesCol: q.smiles_col,
        ...mapOf(q),
      });
    },
  );
}
