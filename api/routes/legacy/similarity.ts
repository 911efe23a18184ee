/**
 * GET /similarity, /batch_similarity, /similarity_matrix and (database-similarity.ts)
 * /database_similarity (docs/operations.md). Lists are repeated query keys; the computations run on the analysis threads
 * or the search pool, never on this event loop.
 */
import { Type } from '@sinclair/typebox';
import type { App } from '../../types.ts';
import { validationError } from '../../../platform/errors.ts';
import { ANALYSIS_LIMITS, type AnalysisService } from '../../services/analysis.ts';
import type { SearchService } from '../../services/search-service.ts';
import { registerDatabaseSimilarityRoute } from './database-similarity.ts';
import {
  ex,
  JobStartedSchema,
  requireMorgan,
  SearchTypeParam,
  SmilesList,
  nonEmptyList,
  TAGS,
} from './analysis-params.ts';

const NullableNumber = Type.Union([Type.Number(), Type.Null()]);
const NullableString = Type.Union([Type.String(), Type.Null()]);

/** The similarity routes over the analysis and search services. */
export function registerSimilarityRoutes(app: App, analysis: AnalysisService, search: SearchService): void {
  app.get(
    '/similarity',
    {
      schema: {
        tags: TAGS.similarity,
        summary: 'Similarity of two molecules',
        querystring: Type.Object({
          smiles_1: Type.String({ description: 'First molecule (SMILES)' }),
          smiles_2: Type.String({ description: 'Second molecule (SMILES)' }),
          search_type: SearchTypeParam,
        }),
        response: {
          200: ex(
            Type.Object({
              similarity: Type.Number(),
              search_type: Type.String(),
              metric: Type.String(),
              canonical_smiles: Type.Array(Type.String()),
            }),
            {
              similarity: 0.3333333333333333,
              search_type: 'morgan',
              metric: 'morgan_tanimoto',
              canonical_smiles: ['CCO', 'CCN'],
            },
          ),
        },
      },
    },
    async (request) => {
      const q = request.query;
      const r = await analysis.run({
        op: 'pair',
        smiles1: q.smiles_1,
        smiles2: q.smiles_2,
        searchType: q.search_type,
      });
      return {
        similarity: r.similarity,
        search_type: q.search_type,
        metric: r.metric,
        canonical_smiles: r.canonical_smiles,
      };
    },
  );

  app.get(
    '/batch_similarity',
    {
      schema: {
        tags: TAGS.similarity,
        summary: 'Similarity of one molecule to each of a list (column-oriented)',
        querystring: Type.Object({
          search_input: Type.String({ description: 'The molecule (SMILES)' }),
          smiles_list: SmilesList(
            `Molecules to compare with, repeated; 1 to ${ANALYSIS_LIMITS.syncMolecules}`,
          ),
          search_type: SearchTypeParam,
        }),
        response: {
          200: ex(
            Type.Object({
              canonical_query: Type.String(),
              smiles: Type.Array(Type.String()),
              canonical_smiles: Type.Array(NullableString),
              similarity: Type.Array(NullableNumber),
              error: Type.Array(NullableString),
            }),
            {
              canonical_query: 'CCO',
              smiles: ['CCN', 'c1ccccc1'],
              canonical_smiles: ['CCN', 'c1ccccc1'],
              similarity: [0.3333333333333333, 0],
              error: [null, null],
            },
          ),
        },
      },
    },
    async (request) => {
      const q = request.query;
      const list = nonEmptyList(q.smiles_list, 'smiles_list', ANALYSIS_LIMITS.syncMolecules);
      const r = await analysis.run({ op: 'batch', query: q.search_input, list, searchType: q.search_type });
      return {
        canonical_query: r.canonical_query,
        smiles: list,
        canonical_smiles: r.canonical_smiles,
        similarity: r.similarity,
        error: r.error,
      };
    },
  );

  app.get(
    '/similarity_matrix',
    {
      schema: {
        tags: TAGS.similarity,
        summary: 'Similarity matrix of two lists or uploaded files (square when the second is omitted)',
        description:
          `Up to ${ANALYSIS_LIMITS.syncMatrixCells} cells answered at once (unparsable rows/columns are null); ` +
          `more cells, or uploaded files (input_file_1, input_file_2), run as a job (up to ${ANALYSIS_LIMITS.maxMatrixCells} cells): ` +
          'the answer is {status: PENDING, job_name}; poll /job_status, then /analysis_result and /analysis_result_file?name=matrix.npy.',
        querystring: Type.Object({
          smiles_list_1: Type.Optional(SmilesList('Row molecules, repeated (or input_file_1)')),
          input_file_1: Type.Optional(
            Type.String({ description: 'Row molecules: an uploaded .csv/.tsv/.smi (job)' }),
          ),
          input_file_2: Type.Optional(
            Type.String({ description: 'Column molecules: an uploaded file (job)' }),
          ),
          smiles_col: Type.String({ default: 'SMILES', description: 'SMILES column of the files' }),
          smiles_list_2: Type.Optional(
            Type.Array(Type.String(), { description: 'Column molecules, repeated (default: the rows)' }),
          ),
          search_type: SearchTypeParam,
        }),
        response: {
          202: JobStartedSchema,
          200: ex(
            Type.Object({
              rows: Type.Integer(),
              cols: Type.Integer(),
              row_smiles: Type.Array(NullableString),
              col_smiles: Type.Array(NullableString),
              matrix: Type.Array(Type.Union([Type.Array(NullableNumber), Type.Null()])),
              errors_1: Type.Array(NullableString),
              errors_2: Type.Array(NullableString),
            }),
            {
              rows: 1,
              cols: 2,
              row_smiles: ['CCO'],
              col_smiles: ['CCO', 'CCN'],
              matrix: [[1, 0.3333333333333333]],
              errors_1: [null],
              errors_2: [null, null],
            },
          ),
        },
      },
    },
    async (request, reply) => {
      const q = request.query;
      const account = request.account.id;
      const hasList = (q.smiles_list_1 ?? []).some((x) => x.trim() !== '');
      if (hasList === Boolean(q.input_file_1))
        throw validationError(
          ['query', 'smiles_list_1'],
          'give either smiles_list_1 or input_file_1',
          'value_error.empty_input',
        );
      if (q.input_file_2 && q.smiles_list_2?.length)
        throw validationError(
          ['query', 'smiles_list_2'],
          'give either smiles_list_2 or input_file_2',
          'value_error.invalid_parameter',
        );
      requireMorgan(q.search_type);
      if (q.input_file_1 || q.input_file_2) {
        const jobs = analysis.jobMode();
        const list1 = q.input_file_1
          ? (await jobs.readFile(account, q.input_file_1, q.smiles_col, 'input_file_1')).smiles
          : nonEmptyList(q.smiles_list_1, 'smiles_list_1', ANALYSIS_LIMITS.syncMolecules);
        const list2 = q.input_file_2
          ? (await jobs.readFile(account, q.input_file_2, q.smiles_col, 'input_file_2')).smiles
          : q.smiles_list_2?.length
            ? nonEmptyList(q.smiles_list_2, 'smiles_list_2', ANALYSIS_LIMITS.syncMolecules)
            : undefined;
        const field2 = q.input_file_2 ? 'input_file_2' : list2 ? 'smiles_list_2' : 'input_file_1';
        return reply
          .code(202)
          .send(await jobs.matrix(account, { list1, list2, searchType: q.search_type }, field2));
      }
      const list1 = nonEmptyList(q.smiles_list_1, 'smiles_list_1', ANALYSIS_LIMITS.syncMolecules);
      const list2 = q.smiles_list_2?.length
        ? nonEmptyList(q.smiles_list_2, 'smiles_list_2', ANALYSIS_LIMITS.syncMolecules)
        : undefined;
      const jobs = analysis.jobModeIfAny();
      // without job mode (a deployment without workers) the engine's 422 states the sync limit
      if (jobs && list1.length * (list2 ?? list1).length > ANALYSIS_LIMITS.syncMatrixCells)
        return reply
          .code(202)
          .send(
            await jobs.matrix(
              account,
              { list1, list2, searchType: q.search_type },
              list2 ? 'smiles_list_2' : 'smiles_list_1',
            ),
          );
      return analysis.run({ op: 'matrix', list1, list2, searchType: q.search_type });
    },
  );

  registerDatabaseSimilarityRoute(app, analysis, search);
}
