/**
 * GET /embeddings, /centroid_embeddings and /embeddings_file (docs/operations.md): the Morgan vector
 * of each molecule (bits or RDKit's folded counts), the mean vector of a set, and the embeddings of
 * an uploaded file written to the caller's area.
 */
import { Type } from '@sinclair/typebox';
import type { App } from '../../types.ts';
import { ANALYSIS_LIMITS, type AnalysisService } from '../../services/analysis.ts';
import { isThreeDType } from '../../services/analysis-3d.ts';
import { MAX_FILE_MOLECULES } from '../../services/analysis-files.ts';
import {
  EmbeddingSearchTypeParam,
  ex,
  JobStartedSchema,
  nonEmptyList,
  SmilesList,
  TAGS,
} from './analysis-params.ts';

const NullableString = Type.Union([Type.String(), Type.Null()]);
const EmbeddingType = Type.String({
  default: 'bits',
  description:
    'bits (the 2048 fingerprint bits) or counts (RDKit folded Morgan counts); ignored for the 3D types, whose embedding is the conformers’ 60 first-stage floats',
});

const embeddingsQuery = {
  search_input: SmilesList(`Molecules (SMILES), repeated; 1 to ${ANALYSIS_LIMITS.syncMolecules}`),
  search_type: EmbeddingSearchTypeParam,
  embedding_type: EmbeddingType,
};

/** The embeddings routes over the analysis service. */
export function registerEmbeddingRoutes(app: App, analysis: AnalysisService): void {
  app.get(
    '/embeddings',
    {
      schema: {
        tags: TAGS.embeddings,
        summary:
          'The embedding of each molecule (Morgan bits or counts; 3D types: conformers × 60 first-stage floats)',
        description: `At most ${ANALYSIS_LIMITS.syncMolecules} molecules (${ANALYSIS_LIMITS.sync3dMolecules} for the 3D types, each embedded in 3D by the chem3d worker).`,
        querystring: Type.Object({
          ...embeddingsQuery,
          format: Type.String({
            default: 'dense',
            description:
              'dense (2048 numbers per molecule) or sparse ({index: value} of the non-zero entries)',
          }),
        }),
        response: {
          200: ex(
            Type.Object({
              search_type: Type.String(),
              embedding_type: Type.String(),
              dimensions: Type.Integer(),
              smiles: Type.Array(Type.String()),
              canonical_smiles: Type.Array(NullableString),
              conformers: Type.Optional(
                Type.Array(Type.Integer(), { description: '3D types: conformers per molecule' }),
              ),
              embeddings: Type.Array(
                Type.Union([
                  Type.Array(Type.Number()),
                  Type.Record(Type.String(), Type.Number()),
                  Type.Array(Type.Array(Type.Number()), {
                    description: '3D types: per conformer, the 60 first-stage floats',
                  }),
                  Type.Null(),
                ]),
              ),
              errors: Type.Array(NullableString),
            }),
            {
              search_type: 'morgan',
              embedding_type: 'counts',
              dimensions: 2048,
              smiles: ['CCO'],
              canonical_smiles: ['CCO'],
              embeddings: [{ '80': 1, '222': 1, '294': 1, '807': 1, '1057': 1, '1410': 1 }],
              errors: [null],
            },
          ),
        },
      },
    },
    async (request) => {
      const q = request.query;
      const smiles = nonEmptyList(q.search_input, 'search_input', ANALYSIS_LIMITS.syncMolecules);
      if (isThreeDType(q.search_type)) {
        const r3 = await analysis.threeD.embeddings(smiles, q.format);
        return { search_type: q.search_type, embedding_type: 'conformers', smiles, ...r3 };
      }
      const r = await analysis.run({
        op: 'embeddings',
        smiles,
        searchType: q.search_type,
        kind: q.embedding_type,
        format: q.format,
      });
      return { search_type: q.search_type, embedding_type: q.embedding_type, smiles, ...r };
    },
  );

  app.get(
    '/centroid_embeddings',
    {
      schema: {
        tags: TAGS.embeddings,
        summary: 'The mean embedding of a set (for bits: the bit frequencies the centroid search ranks by)',
        querystring: Type.Object({
          ...embeddingsQuery,
          format: Type.String({
            default: 'dense',
            description: 'dense (2048 numbers) or sparse ({index: value} of the non-zero entries)',
          }),
        }),
        response: {
          200: ex(
            Type.Object({
              search_type: Type.String(),
              embedding_type: Type.String(),
              dimensions: Type.Integer(),
              n_molecules: Type.Integer(),
              centroid: Type.Union([Type.Array(Type.Number()), Type.Record(Type.String(), Type.Number())]),
              errors: Type.Array(NullableString),
            }),
            {
              search_type: 'morgan',
              embedding_type: 'bits',
              dimensions: 2048,
              n_molecules: 2,
              centroid: [0, 0.5, 1],
              errors: [null, null],
            },
          ),
        },
      },
    },
    async (request) => {
      const q = request.query;
      const smiles = nonEmptyList(q.search_input, 'search_input', ANALYSIS_LIMITS.syncMolecules);
      if (isThreeDType(q.search_type)) {
        const r3 = await analysis.threeD.centroid(smiles, q.format);
        return { search_type: q.search_type, embedding_type: 'conformers', ...r3 };
      }
      const r = await analysis.run({
        op: 'centroid',
        smiles,
        searchType: q.search_type,
        kind: q.embedding_type,
        format: q.format,
      });
      return { search_type: q.search_type, embedding_type: q.embedding_type, ...r };
    },
  );

  app.get(
    '/embeddings_file',
    {
      schema: {
        tags: TAGS.embeddings,
        summary: 'Embeddings of an uploaded file, written to your file area (.npy and an index CSV)',
        description:
          `Up to ${MAX_FILE_MOLECULES} molecules answered when written (3D types: ${ANALYSIS_LIMITS.sync3dMolecules}); ` +
          `Morgan files up to ${ANALYSIS_LIMITS.maxFileMolecules} rows run as a job: {status: PENDING, job_name}; ` +
          'poll /job_status, then /analysis_result lists the files written to your area.',
        querystring: Type.Object({
          input_file: Type.String({ description: 'An uploaded .csv/.tsv (with smiles_col) or .smi file' }),
          dest_folder: Type.String({ default: 'embeddings', description: 'Folder of your file area' }),
          smiles_col: Type.String({ default: 'SMILES', description: 'SMILES column (ignored for .smi)' }),
          search_type: EmbeddingSearchTypeParam,
          embedding_type: EmbeddingType,
        }),
        response: {
          202: JobStartedSchema,
          200: ex(Type.Object({}, { additionalProperties: true }), {
            status: 'SUCCESS',
            input_file: 'drugs.csv',
            dest_folder: 'embeddings',
            search_type: 'morgan',
            embedding_type: 'bits',
            dimensions: 2048,
            count: 2,
            errors: 0,
            output_files: [
              'embeddings/drugs_morgan_embeddings.npy',
              'embeddings/drugs_morgan_embeddings_index.csv',
            ],
          }),
        },
      },
    },
    async (request, reply) => {
      const q = request.query;
      if (isThreeDType(q.search_type))
        return analysis.threeD.embeddingsFile(request.account.id, {
          inputFile: q.input_file,
          destFolder: q.dest_folder,
          smilesCol: q.smiles_col,
          searchType: q.search_type,
        });
      if (q.search_type === 'morgan') {
        // above the synchronous limit (and up to the job limit) the embeddings are a job's work
        const account = request.account.id;
        const jobs = analysis.jobModeIfAny();
        const file = jobs ? await jobs.readFile(account, q.input_file, q.smiles_col) : undefined;
        if (jobs && file && file.smiles.length > MAX_FILE_MOLECULES)
          return reply.code(202).send(
            await jobs.embeddingsFile(account, {
              input: file.input,
              smiles: file.smiles,
              destFolder: q.dest_folder,
              searchType: q.search_type,
              kind: q.embedding_type,
            }),
          );
      }
      return analysis.embeddingsFile(request.account.id, {
        inputFile: q.input_file,
        destFolder: q.dest_folder,
        smilesCol: q.smiles_col,
        searchType: q.search_type,
        kind: q.embedding_type,
      });
    },
  );
}
