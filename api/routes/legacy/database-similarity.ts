/**
 * GET /database_similarity (docs/operations.md): how close a list, a file or a whole database is
 * to databases; short lists answered at once on the search pool, the rest run as analysis jobs.
 */
import { Type } from '@sinclair/typebox';
import type { App } from '../../types.ts';
import { validationError } from '../../../platform/errors.ts';
import { ANALYSIS_LIMITS, type AnalysisService } from '../../services/analysis.ts';
import type { SearchService } from '../../services/search-service.ts';
import { checkDatabases, refuseSynthonSpaces } from './params.ts';
import { MAX_BATCH_INPUTS } from './search.ts';
import {
  ex,
  JobStartedSchema,
  requireMorgan,
  SearchTypeParam,
  SmilesList,
  nonEmptyList,
  TAGS,
} from './analysis-params.ts';

/** The database similarity route over the analysis and search services. */
export function registerDatabaseSimilarityRoute(
  app: App,
  analysis: AnalysisService,
  search: SearchService,
): void {
  app.get(
    '/database_similarity',
    {
      schema: {
        tags: TAGS.similarity,
        summary:
          'How close a list, a file or a whole database is to a database (nearest-neighbour similarity distribution)',
        description:
          `Nearest neighbour per molecule and the score distribution, answered at once for up to ${MAX_BATCH_INPUTS} molecules. ` +
          `Longer lists (up to ${ANALYSIS_LIMITS.syncMolecules}), an uploaded file (input_file, up to ${ANALYSIS_LIMITS.maxDatabaseSimilarityMolecules} rows) ` +
          'or a whole database (source_db) run as a job: {status: PENDING, job_name}; poll /job_status, then /analysis_result ' +
          '(the distribution) and /analysis_result_file?name=nearest.npy (each molecule’s nearest score, NaN when none).',
        querystring: Type.Object({
          search_input: Type.Optional(
            SmilesList(`Molecules, repeated; 1 to ${ANALYSIS_LIMITS.syncMolecules}`),
          ),
          input_file: Type.Optional(
            Type.String({ description: 'Molecules: an uploaded .csv/.tsv/.smi (job)' }),
          ),
          smiles_col: Type.String({ default: 'SMILES', description: 'SMILES column of input_file' }),
          source_db: Type.Optional(
            Type.String({ description: 'A whole database compared with db_names, every molecule (job)' }),
          ),
          db_names: Type.Optional(
            Type.Array(Type.String(), { description: 'Databases compared against (at most 2)' }),
          ),
          search_type: SearchTypeParam,
          bins: Type.Integer({ default: 20, description: 'Histogram bins over [0, 1] (1-1000)' }),
        }),
        response: {
          202: JobStartedSchema,
          200: ex(Type.Object({}, { additionalProperties: true }), {
            search_type: 'morgan',
            db_names: ['zinc15_sample'],
            count: 1,
            nearest: [{ smiles: 'CCO', similarity: 1, id: 'ZINC…', database: 'zinc15_sample', error: null }],
            distribution: {
              count: 1,
              mean: 1,
              std: 0,
              min: 1,
              max: 1,
              quantiles: { p05: 1, p25: 1, p50: 1, p75: 1, p95: 1 },
              histogram: { edges: [0, 0.5, 1], counts: [0, 1], missing: 0, below: 0, above: 0, total: 1 },
            },
          }),
        },
      },
    },
    async (request, reply) => {
      const q = request.query;
      requireMorgan(q.search_type);
      const given = [(q.search_input ?? []).some((x) => x.trim() !== ''), !!q.input_file, !!q.source_db];
      if (given.filter(Boolean).length !== 1)
        throw validationError(
          ['query', 'search_input'],
          'give exactly one of search_input, input_file and source_db',
          'value_error.empty_input',
        );
      if (!(Number.isInteger(q.bins) && q.bins >= 1 && q.bins <= ANALYSIS_LIMITS.maxBins))
        throw validationError(
          ['query', 'bins'],
          `must be an integer from 1 to ${ANALYSIS_LIMITS.maxBins}`,
          'value_error.invalid_parameter',
        );
      const dbNames = checkDatabases(search, q.db_names, ['morgan']);
      refuseSynthonSpaces(search, dbNames, '/database_similarity');
      const account = request.account.id;
      if (q.source_db) {
        const ids = search.databases().map((d) => d.id);
        if (!ids.includes(q.source_db))
          throw validationError(
            ['query', 'source_db'],
            `unknown database ${JSON.stringify(q.source_db)}; available: ${ids.join(', ')}`,
            'value_error.unknown_database',
          );
        const [sourceDb] = checkDatabases(search, [q.source_db], ['morgan'], 1);
        refuseSynthonSpaces(search, [sourceDb], '/database_similarity');
        return reply
          .code(202)
          .send(await analysis.jobMode().databaseSimilarity(account, { sourceDb, dbNames, bins: q.bins }));
      }
      if (q.input_file) {
        const jobs = analysis.jobMode();
        const { smiles: rows } = await jobs.readFile(account, q.input_file, q.smiles_col);
        return reply
          .code(202)
          .send(await jobs.databaseSimilarity(account, { smiles: rows, dbNames, bins: q.bins }));
      }
      const jobs = analysis.jobModeIfAny();
      // without job mode (a deployment without workers) lists stay within the synchronous limit
      const smiles = nonEmptyList(
        q.search_input,
        'search_input',
        jobs ? ANALYSIS_LIMITS.syncMolecules : MAX_BATCH_INPUTS,
      );
      if (smiles.length > MAX_BATCH_INPUTS)
        return reply
          .code(202)
          .send(await analysis.jobMode().databaseSimilarity(account, { smiles, dbNames, bins: q.bins }));
      const r = await analysis.databaseSimilarity({ smiles, dbNames, bins: q.bins });
      return { search_type: 'morgan', db_names: dbNames, count: smiles.length, ...r };
    },
  );
}
