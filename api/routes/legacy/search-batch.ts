import { Type } from '@sinclair/typebox';
import type { App } from '../../types.ts';
import { validationError } from '../../../platform/errors.ts';
import { THREE_D_TYPES, type ShapeSearchService, type ThreeDType } from '../../services/shape-search.ts';
import type { SearchService, SearchType } from '../../services/search-service.ts';
import { capNeighbors, checkDatabases, INT32_MAX, queryFirst, SearchTypeSchema } from './params.ts';
import { parseQuery } from '../../services/v2-search-common.ts';
import { databases3d, MAX_BATCH_INPUTS, SearchResultSchema, searchPayload } from './search.ts';

const BatchQuery = Type.Object({
  search_type: Type.Union([SearchTypeSchema], { default: 'espsim_shape' }),
  n_neighbors: Type.Integer({ default: 30, maximum: INT32_MAX }),
  search_input: Type.Array(Type.String(), { description: 'Query molecules (SMILES), repeated parameter' }),
  db_names: Type.Optional(Type.Array(Type.String())),
  search_mode: Type.Union([Type.Literal('centroid'), Type.Literal('batch')], { default: 'centroid' }),
});

/**
 * GET /batch_search: one top k per input (batch) or one ranking for the set (centroid: Morgan's
 * mean bit-frequency vector; for 3D types each row's mean similarity to every input).
 */
export function registerBatchSearchRoute(app: App, search: SearchService, shape?: ShapeSearchService): void {
  app.get(
    '/batch_search',
    {
      schema: {
        tags: ['legacy search'],
        summary:
          'Batch (N neighbours per input) or centroid search (Morgan: neighbours of the mean fingerprint; 3D types: rows ranked by their mean similarity to every input, at most 10 inputs)',
        querystring: BatchQuery,
        response: { 200: Type.Union([Type.Array(SearchResultSchema), SearchResultSchema]) },
      },
    },
    async (request, reply) => {
      const q = request.query;
      const searchTypes = [q.search_type as SearchType];
      const { k, remark } = capNeighbors(q.n_neighbors);
      const is3d = (THREE_D_TYPES as readonly string[]).includes(q.search_type);
      const inputs = (q.search_input ?? []).map((s) => s.trim());
      // A bad input is named before a database that is not ready yet (user trial).
      const dbNames = await queryFirst(
        () =>
          is3d && shape
            ? databases3d(search, shape, q.db_names, searchTypes)
            : checkDatabases(search, q.db_names, searchTypes),
        async () => {
          for (const [i, s] of inputs.entries()) await parseQuery(s, ['query', 'search_input', i]);
        },
      );
      if (inputs.length === 0)
        throw validationError(['query', 'search_input'], 'at least one SMILES is required');
      if (inputs.length > MAX_BATCH_INPUTS)
        throw validationError(
          ['query', 'search_input'],
          `at most ${MAX_BATCH_INPUTS} inputs per batch search, got ${inputs.length}`,
          'value_error.too_many',
        );
      const base = {
        dbNames,
        k,
        descriptors: false,
        properties: false,
        filters: [],
        ordering: ['Similarity' as const],
      };
      if (is3d && shape && q.search_mode === 'centroid') {
        const result = await shape.centroid({
          smiles: inputs,
          dbNames,
          k,
          type: q.search_type as ThreeDType,
        });
        return searchPayload(result, searchTypes, dbNames, remark);
      }
      if (is3d && shape) {
        const out = [];
        // One input at a time: each embedding and exact stage already uses the worker and pool.
        for (const [i, smiles] of inputs.entries())
          out.push(
            searchPayload(
              await shape.search({
                smiles,
                dbNames,
                k,
                types: [q.search_type as ThreeDType],
                descriptors: false,
                loc: ['query', 'search_input', i],
              }),
              searchTypes,
              dbNames,
              remark,
            ),
          );
        return out;
      }
      if (q.search_mode === 'batch') {
        const results = await search.batch({ ...base, smiles: inputs });
        // Fleet fan-out: the header carries the least-covered query's share (each result its warning).
        const covered = results.flatMap((r) => (r.coverage === undefined ? [] : [r.coverage]));
        if (covered.length) reply.header('x-molsearch-coverage', Math.min(...covered).toFixed(4));
        return results.map((r) => searchPayload(r, searchTypes, dbNames, remark));
      }
      const result = await search.centroid({ ...base, smiles: inputs });
      if (result.coverage !== undefined) reply.header('x-molsearch-coverage', result.coverage.toFixed(4));
      return searchPayload(result, searchTypes, dbNames, remark);
    },
  );
}
