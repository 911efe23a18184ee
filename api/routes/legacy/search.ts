import { Type, type Static } from '@sinclair/typebox';
import type { App } from '../../types.ts';
import { randomUUID } from 'node:crypto';
import { DomainError, validationError } from '../../../platform/errors.ts';
import { THREE_D_TYPES, type ShapeSearchService, type ThreeDType } from '../../services/shape-search.ts';
import type { SearchService, SearchType, SimilarityResult } from '../../services/search-service.ts';
import {
  BoolParam,
  checkDatabases,
  checkFilters,
  capNeighbors,
  checkOrderings,
  FilteringSchema,
  INT32_MAX,
  MAX_SYNC_DATABASES,
  OrderingSchema,
  SAMPLE_SMILES,
  SearchQualitySchema,
  SearchTypeSchema,
} from './params.ts';

const NeighborSchema = Type.Object(
  {
    smiles: Type.String(),
    id: Type.String(),
    database: Type.String(),
    db_id: Type.String(),
    similarity: Type.Number(),
  },
  {
    additionalProperties: true,
    description:
      'A neighbour: score keys per metric (e.g. "Morgan Tanimoto") and descriptor/property keys when requested',
  },
);

export const SearchResultSchema = Type.Object({
  neighbors: Type.Array(NeighborSchema),
  canonicalized_query: Type.String(),
  remarks: Type.String(),
  warnings: Type.Optional(
    Type.Array(Type.String(), {
      description: 'Present when some shards of a fleet catalog did not answer within the search budget',
    }),
  ),
  search_info: Type.Object({
    search_type: Type.Array(Type.String()),
    db_names: Type.Array(Type.String()),
    search_id: Type.String(),
    count: Type.Integer(),
  }),
});

const simpleQuery = {
  search_input: Type.String({ default: SAMPLE_SMILES, description: 'Query molecule (SMILES)' }),
  search_type: Type.Array(SearchTypeSchema, { default: ['espsim_shape'] }),
  search_quality: Type.Optional(SearchQualitySchema),
  db_names: Type.Optional(
    Type.Array(Type.String(), { description: 'Databases to search (at most 2); see /available_databases' }),
  ),
  n_neighbors: Type.Integer({
    default: 30,
    maximum: INT32_MAX,
    description: 'Number of neighbours (at most 100 are returned; more is capped, with a remark)',
  }),
};

const MolsearchSimpleQuery = Type.Object(simpleQuery);
const MolsearchQuery = Type.Object({
  ...simpleQuery,
  descriptors: BoolParam(true, 'Add the 11 descriptors to each neighbour'),
  properties: BoolParam(true, 'Add the 22 predicted ADMET properties to each neighbour'),
  filter_molecules: BoolParam(false, 'Apply the filters named in `filtering`'),
  order_molecules: BoolParam(true, 'Order by the keys named in `ordering`'),
  filtering: FilteringSchema,
  ordering: OrderingSchema,
});
type MolsearchQueryT = Static<typeof MolsearchQuery>;

const BatchQuery = Type.Object({
  search_type: Type.Union([SearchTypeSchema], { default: 'espsim_shape' }),
  n_neighbors: Type.Integer({ default: 30, maximum: INT32_MAX }),
  search_input: Type.Array(Type.String(), { description: 'Query molecules (SMILES), repeated parameter' }),
  db_names: Type.Optional(Type.Array(Type.String())),
  search_mode: Type.Union([Type.Literal('centroid'), Type.Literal('batch')], { default: 'centroid' }),
});

export const MAX_BATCH_INPUTS = 100;

/** The /molsearch payload of one search result. */
export function searchPayload(
  result: SimilarityResult,
  searchTypes: string[],
  dbNames: string[],
  remark?: string,
) {
  return {
    neighbors: result.rows,
    canonicalized_query: result.canonical,
    remarks: [...(remark ? [remark] : []), ...result.remarks].join(' '),
    ...(result.warnings?.length ? { warnings: result.warnings.map((w) => w.message) } : {}),
    search_info: {
      search_type: searchTypes,
      db_names: dbNames,
      search_id: `search_${randomUUID()}`,
      count: result.rows.length,
    },
  };
}

async function molsearch(
  search: SearchService,
  q: Partial<MolsearchQueryT> & Static<typeof MolsearchSimpleQuery>,
  reply: { header(name: string, value: string): unknown },
  shape?: ShapeSearchService,
) {
  const searchTypes = [...new Set(q.search_type)] as SearchType[];
  const { k, remark } = capNeighbors(q.n_neighbors);
  const threeD = searchTypes.filter((t): t is ThreeDType => (THREE_D_TYPES as readonly string[]).includes(t));
  if (threeD.length) return molsearch3d(search, q, searchTypes, threeD, { k, remark }, shape);
  // /molsearch searches synthon spaces: without db_names the default space for morgan/synthongpt.
  const dbNames = checkDatabases(search, q.db_names, searchTypes, MAX_SYNC_DATABASES, true);
  const filters = q.filter_molecules ? checkFilters(search, q.filtering ?? []) : [];
  const ordering = q.order_molecules === false ? [] : checkOrderings(search, q.ordering ?? ['Similarity']);
  if (!q.search_input.trim()) throw validationError(['query', 'search_input'], 'empty SMILES');
  const result = await search.similarity({
    smiles: q.search_input,
    dbNames,
    k,
    descriptors: q.descriptors ?? false,
    properties: q.properties ?? false,
    filters,
    ordering,
  });
  if (result.coverage !== undefined) reply.header('x-molsearch-coverage', result.coverage.toFixed(4));
  return searchPayload(result, searchTypes, dbNames, remark);
}

/** espsim_shape / espsim_electrostatic (docs/chem3d.md): 503 without a 3D worker, 4xx until ready. */
async function molsearch3d(
  search: SearchService,
  q: Partial<MolsearchQueryT> & Static<typeof MolsearchSimpleQuery>,
  searchTypes: SearchType[],
  threeD: ThreeDType[],
  { k, remark }: { k: number; remark?: string },
  shape?: ShapeSearchService,
) {
  if (!shape) {
    // Databases without 3D data answer the usual 422 naming the types they serve.
    checkDatabases(search, q.db_names, searchTypes);
    throw new DomainError('capability_unavailable', '3D search types are not configured on this deployment');
  }
  if (threeD.length !== searchTypes.length)
    throw validationError(
      ['query', 'search_type'],
      `3D search types cannot be combined with ${searchTypes.filter((t) => !threeD.includes(t as ThreeDType)).join(', ')} in one call yet`,
    );
  if (!q.search_input.trim()) throw validationError(['query', 'search_input'], 'empty SMILES');
  const dbNames = await databases3d(search, shape, q.db_names, searchTypes);
  const result = await shape.search({
    smiles: q.search_input,
    dbNames,
    k,
    types: threeD,
    quality: q.search_quality,
    descriptors: q.descriptors ?? false,
  });
  return searchPayload(result, searchTypes, dbNames, remark);
}

/** The databases of a 3D request: the named ones once 3D-ready, else the default 3D database. */
async function databases3d(
  search: SearchService,
  shape: ShapeSearchService,
  dbNames: string[] | undefined,
  searchTypes: SearchType[],
): Promise<string[]> {
  let names = dbNames;
  if (!names?.length) {
    const def = await shape.defaultDatabase();
    if (!def)
      throw validationError(
        ['query', 'db_names'],
        'no database is 3D-ready yet; GET /available_databases_full shows each 3D stage',
        'value_error.not_ready',
      );
    names = [def];
  }
  await shape.checkReady(names.flatMap((n) => n.split(',')).map((n) => n.trim()));
  return checkDatabases(search, names, searchTypes);
}

/** GET /molsearch, /molsearch_simple and /batch_search over the search service. */
export function registerSearchRoutes(app: App, search: SearchService, shape?: ShapeSearchService): void {
  app.get(
    '/molsearch',
    {
      schema: {
        tags: ['legacy search'],
        summary: 'Similarity search (at most 100 molecules, more is capped with a remark; 2 databases)',
        querystring: MolsearchQuery,
        response: { 200: SearchResultSchema },
      },
    },
    (request, reply) => molsearch(search, request.query, reply, shape),
  );
  app.get(
    '/molsearch_simple',
    {
      schema: {
        tags: ['legacy search'],
        summary: 'Similarity search without descriptors, properties or filters',
        querystring: MolsearchSimpleQuery,
        response: { 200: SearchResultSchema },
      },
    },
    (request, reply) => molsearch(search, request.query, reply, shape),
  );
  app.get(
    '/batch_search',
    {
      schema: {
        tags: ['legacy search'],
        summary: 'Batch (N neighbours per input) or centroid (neighbours of the mean fingerprint) search',
        querystring: BatchQuery,
        response: { 200: Type.Union([Type.Array(SearchResultSchema), SearchResultSchema]) },
      },
    },
    async (request) => {
      const q = request.query;
      const searchTypes = [q.search_type as SearchType];
      const { k, remark } = capNeighbors(q.n_neighbors);
      const is3d = (THREE_D_TYPES as readonly string[]).includes(q.search_type);
      if (is3d && shape && q.search_mode === 'centroid')
        throw validationError(
          ['query', 'search_mode'],
          `centroid mode is defined for morgan only so far; use search_mode=batch with ${q.search_type}`,
        );
      const dbNames =
        is3d && shape
          ? await databases3d(search, shape, q.db_names, searchTypes)
          : checkDatabases(search, q.db_names, searchTypes);
      const inputs = (q.search_input ?? []).map((s) => s.trim());
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
        return results.map((r) => searchPayload(r, searchTypes, dbNames, remark));
      }
      const result = await search.centroid({ ...base, smiles: inputs });
      return searchPayload(result, searchTypes, dbNames, remark);
    },
  );
}
