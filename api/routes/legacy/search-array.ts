/**
 * GET /molsearch_array (several queries in one call) and GET|POST /molsearch_embedding (search by a
 * given vector), docs/operations.md; the searches run on the engine's search pool.
 */
import { Type } from '@sinclair/typebox';
import type { App } from '../../types.ts';
import { DomainError, validationError } from '../../../platform/errors.ts';
import { isThreeDType, threeDVector } from '../../services/analysis-3d.ts';
import type { ShapeSearchService } from '../../services/shape-search.ts';
import type { AnalysisService } from '../../services/analysis.ts';
import { csvCell } from '../../services/analysis-files.ts';
import type { SearchService, SearchType } from '../../services/search-service.ts';
import { BoolParam, checkDatabases, checkNeighbors, SAMPLE_SMILES, SearchQualitySchema } from './params.ts';
import { databases3d, SearchResultSchema, searchPayload, MAX_BATCH_INPUTS } from './search.ts';
import { ex, SmilesList, nonEmptyList, TAGS } from './analysis-params.ts';

const ArrayRowSchema = Type.Composite([
  Type.Omit(SearchResultSchema, ['canonicalized_query']),
  Type.Object({
    canonicalized_query: Type.Union([Type.String(), Type.Null()], {
      description: 'null when the SMILES does not parse (remarks says so)',
    }),
  }),
]);

const ArrayQuery = Type.Object({
  search_input: SmilesList(`Query molecules (SMILES), repeated; 1 to ${MAX_BATCH_INPUTS}`),
  search_type: Type.String({ default: 'morgan', description: 'Search kind (morgan)' }),
  search_quality: Type.Optional(SearchQualitySchema),
  db_names: Type.Optional(Type.Array(Type.String(), { description: 'Databases (at most 2)' })),
  n_neighbors: Type.Integer({ default: 30, description: 'Neighbours per query (at most 100)' }),
  descriptors: BoolParam(true, 'Add the 11 descriptors to each neighbour'),
  properties: BoolParam(true, 'Add the 22 predicted ADMET properties to each neighbour'),
});

const EmbeddingQuery = Type.Object({
  embedding: Type.Optional(
    Type.Array(Type.String(), {
      description:
        'The vector: repeated numbers or one comma-separated string (morgan: 2048 numbers; 3D types: 60 per conformer, 1-10 conformers, as /embeddings gives them)',
    }),
  ),
  on_bits: Type.Optional(
    Type.Array(Type.Integer(), { description: 'Set bits of a binary fingerprint (0-2047), repeated' }),
  ),
  search_type: Type.String({
    default: 'morgan',
    description: 'morgan, or espsim_shape / espsim_electrostatic (first stage over 3D-ready databases)',
  }),
  db_names: Type.Optional(Type.Array(Type.String())),
  n_neighbors: Type.Integer({ default: 30, description: 'Neighbours (at most 100)' }),
  descriptors: BoolParam(false, 'Add the 11 descriptors'),
  properties: BoolParam(false, 'Add the 22 predicted ADMET properties'),
});

const searchBase = (dbNames: string[], k: number, descriptors: boolean, properties: boolean) => ({
  dbNames,
  k,
  descriptors,
  properties,
  filters: [],
  ordering: ['Similarity' as const],
});

/** The vector of /molsearch_embedding from `embedding` (numbers or comma lists), `on_bits` or a body. */
function embeddingVector(q: { embedding?: string[]; on_bits?: number[] }, body: unknown): number[] {
  const fromBody = (body as { embedding?: unknown } | undefined)?.embedding;
  const sources = [q.embedding?.length, q.on_bits?.length, fromBody !== undefined].filter(Boolean);
  if (sources.length !== 1)
    throw validationError(
      ['query', 'embedding'],
      'give exactly one of embedding (query or body) and on_bits',
      'value_error.invalid_embedding',
    );
  if (q.on_bits?.length) {
    const v = new Array<number>(2048).fill(0);
    for (const b of q.on_bits) {
      if (!(b >= 0 && b < 2048))
        throw validationError(
          ['query', 'on_bits'],
          `bit ${b} outside 0-2047`,
          'value_error.invalid_parameter',
        );
      v[b] = 1;
    }
    return v;
  }
  const raw = fromBody ?? q.embedding!.flatMap((s) => s.split(','));
  if (!Array.isArray(raw))
    throw validationError(
      ['body', 'embedding'],
      'must be a list of numbers',
      'value_error.invalid_embedding',
    );
  return raw.map((x, i) => {
    const n = typeof x === 'number' ? x : typeof x === 'string' && x.trim() !== '' ? Number(x) : NaN;
    if (!Number.isFinite(n))
      throw validationError(
        ['query', 'embedding'],
        `entry ${i} (${JSON.stringify(x)}) is not a finite number`,
        'value_error.invalid_embedding',
      );
    return n;
  });
}

/** GET /molsearch_array and GET|POST /molsearch_embedding over the analysis and search services. */
export function registerArraySearchRoutes(
  app: App,
  analysis: AnalysisService,
  search: SearchService,
  shape?: ShapeSearchService,
): void {
  app.get(
    '/molsearch_array',
    {
      schema: {
        tags: TAGS.search,
        summary: 'Similarity search for several query molecules in one call (one result per input)',
        querystring: ArrayQuery,
        response: {
          200: ex(Type.Array(ArrayRowSchema), [
            {
              neighbors: [
                {
                  smiles: SAMPLE_SMILES,
                  id: 'ZINC000000000053',
                  database: 'zinc15_sample',
                  db_id: 'ZINC000000000053',
                  similarity: 1,
                },
              ],
              canonicalized_query: SAMPLE_SMILES,
              remarks: '',
              search_info: {
                search_type: ['morgan'],
                db_names: ['zinc15_sample'],
                search_id: 'search_…',
                count: 1,
              },
            },
          ]),
        },
      },
    },
    async (request, reply) => {
      const q = request.query;
      const searchTypes = [q.search_type as SearchType];
      const inputs = nonEmptyList(q.search_input, 'search_input', MAX_BATCH_INPUTS);
      const k = checkNeighbors(q.n_neighbors);
      const dbNames = checkDatabases(search, q.db_names, searchTypes);
      const rows = await analysis.molsearchArray({
        smiles: inputs,
        ...searchBase(dbNames, k, q.descriptors, q.properties),
      });
      // Fleet catalogs (one fan-out per query, as /batch_search): the least-covered query's share,
      // in JSON and CSV alike (each JSON result also carries its own warning).
      const covered = rows.flatMap((r) => (r.coverage === undefined ? [] : [r.coverage]));
      if (covered.length) reply.header('x-molsearch-coverage', Math.min(...covered).toFixed(4));
      // The public Python client asks for CSV with `Accept: application/csv`.
      if (/\b(application|text)\/csv\b/.test(request.headers.accept ?? '')) {
        const lines = ['query_index,query_smiles,rank,smiles,id,database,db_id,similarity'];
        rows.forEach((r, qi) =>
          r.rows.forEach((n, rank) =>
            lines.push(
              [qi, inputs[qi], rank + 1, n.smiles, n.id, n.database, n.db_id, n.similarity]
                .map(csvCell)
                .join(','),
            ),
          ),
        );
        return (
          reply
            .type('application/csv; charset=utf-8')
            .header('content-disposition', 'attachment; filename=molsearch_array.csv')
            // a string payload is sent as it is (the JSON schema above describes the JSON answer)
            .send((lines.join('\r\n') + '\r\n') as never)
        );
      }
      return rows.map((r) => ({
        ...searchPayload(r, searchTypes, dbNames),
        canonicalized_query: r.error === undefined ? r.canonical : null,
      }));
    },
  );

  /** A 3D embedding (60 floats per conformer) through the first stage of the 3D search. */
  const search3d = async (
    q: {
      embedding?: string[];
      on_bits?: number[];
      search_type: string;
      db_names?: string[];
      n_neighbors: number;
      descriptors: boolean;
      properties: boolean;
    },
    body: unknown,
  ) => {
    if (q.on_bits?.length)
      throw validationError(
        ['query', 'on_bits'],
        'on_bits is for morgan; a 3D embedding is given as embedding',
        'value_error.invalid_embedding',
      );
    if (!shape) {
      checkDatabases(search, q.db_names, [q.search_type as SearchType]);
      throw new DomainError(
        'capability_unavailable',
        '3D search types are not configured on this deployment',
      );
    }
    const k = checkNeighbors(q.n_neighbors);
    const vector = threeDVector(embeddingVector(q, body));
    const types = [q.search_type as SearchType];
    const dbNames = await databases3d(search, shape, q.db_names, types);
    const r = await shape.searchDescriptors({
      vector,
      dbNames,
      k,
      descriptors: q.descriptors,
      properties: q.properties,
    });
    return searchPayload(r, types, dbNames);
  };

  const embeddingHandler = async (
    request: {
      query: {
        embedding?: string[];
        on_bits?: number[];
        search_type: string;
        db_names?: string[];
        n_neighbors: number;
        descriptors: boolean;
        properties: boolean;
      };
      body?: unknown;
    },
    reply: { header(name: string, value: string): unknown },
  ) => {
    const q = request.query;
    if (isThreeDType(q.search_type)) return search3d(q, request.body);
    if (q.search_type !== 'morgan')
      throw validationError(
        ['query', 'search_type'],
        `search by embedding is available for morgan, espsim_shape and espsim_electrostatic, got ${JSON.stringify(q.search_type)}`,
        'value_error.unknown_metric',
      );
    const k = checkNeighbors(q.n_neighbors);
    const dbNames = checkDatabases(search, q.db_names, ['morgan']);
    const vector = embeddingVector(q, request.body);
    const r = await analysis.byEmbedding({ vector, ...searchBase(dbNames, k, q.descriptors, q.properties) });
    // Fleet catalogs: the share of the molecules whose shards answered, as /molsearch reports it.
    if (r.coverage !== undefined) reply.header('x-molsearch-coverage', r.coverage.toFixed(4));
    return searchPayload(r, ['morgan'], dbNames);
  };
  const embeddingSchema = {
    tags: TAGS.search,
    summary:
      'Search by a given embedding (Morgan bits by Tanimoto, other vectors by continuous Tanimoto; 3D vectors by the 3D first stage)',
    querystring: EmbeddingQuery,
    response: {
      200: {
        ...SearchResultSchema,
        examples: [
          {
            neighbors: [
              {
                smiles: 'CCO',
                id: 'ZINC000000000001',
                database: 'zinc15_sample',
                db_id: 'ZINC000000000001',
                similarity: 1,
              },
            ],
            canonicalized_query: '',
            remarks: '',
            search_info: {
              search_type: ['morgan'],
              db_names: ['zinc15_sample'],
              search_id: 'search_…',
              count: 1,
            },
          },
        ],
      },
    },
  };
  app.get('/molsearch_embedding', { schema: embeddingSchema }, embeddingHandler);
  app.post(
    '/molsearch_embedding',
    {
      schema: {
        ...embeddingSchema,
        body: Type.Object(
          { embedding: Type.Optional(Type.Array(Type.Number())) },
          { description: 'A 2048-number vector that does not fit in a URL' },
        ),
      },
    },
    embeddingHandler,
  );
}
