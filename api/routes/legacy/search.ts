import { Type, type Static } from '@sinclair/typebox';
import type { App } from '../../types.ts';
import { randomUUID } from 'node:crypto';
import { DomainError, validationError } from '../../../platform/errors.ts';
import { THREE_D_TYPES, type ShapeSearchService } from '../../services/shape-search.ts';
import { RANKED_TYPES, THREE_D_ORDERINGS, type RankedType } from '../../services/shape-rank.ts';
import { parseQuery } from '../../services/v2-search-common.ts';
import { searchTypeNote } from '../../plugins/legacy-query.ts';
import {
  ORDERINGS,
  SEARCH_TYPES,
  type OrderingName,
  type SearchService,
  type SearchType,
  type SimilarityResult,
} from '../../services/search-service.ts';
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
  queryFirst,
  SAMPLE_SMILES,
  SearchQualitySchema,
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

/** /molsearch's types: the interface's, plus `consensus` (real clients send it). */
const MOLSEARCH_TYPES = [...SEARCH_TYPES, 'consensus'] as const;
type MolsearchType = (typeof MOLSEARCH_TYPES)[number];

const simpleQuery = {
  search_input: Type.String({ default: SAMPLE_SMILES, description: 'Query molecule (SMILES)' }),
  search_type: Type.Array(
    Type.Union(
      MOLSEARCH_TYPES.map((t) => Type.Literal(t)),
      { description: 'Search kind' },
    ),
    {
      default: ['espsim_shape'],
      description:
        'One or several types (repeated parameter): the first ranks the rows (`similarity`); with a 3D type ' +
        'or consensus every row carries every score column (Shapesim, Espsim, Morgan Tanimoto, Consensus). ' +
        'consensus = reciprocal-rank fusion of the Morgan, shape and electrostatic rankings (docs/search.md).',
    },
  ),
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
  /** A remark on search types older clients send, answered by another (legacy-query.ts). */
  aliasNote?: string,
) {
  const searchTypes = [...new Set(q.search_type)] as MolsearchType[];
  const capped = capNeighbors(q.n_neighbors);
  const k = capped.k;
  const remark = [aliasNote, capped.remark].filter(Boolean).join(' ') || undefined;
  const requested = q.order_molecules === false ? [] : (q.ordering ?? ['Similarity']);
  const threeD =
    searchTypes.some((t) => t === 'consensus' || (THREE_D_TYPES as readonly string[]).includes(t)) ||
    requested.some((o) => (THREE_D_ORDERINGS as readonly string[]).includes(o));
  if (threeD) return molsearch3d(search, q, searchTypes, requested, { k, remark }, shape);
  const types = searchTypes as SearchType[];
  // /molsearch searches synthon spaces: without db_names the default space for morgan/synthongpt.
  if (!q.search_input.trim()) throw validationError(['query', 'search_input'], 'empty SMILES');
  // A bad SMILES is named even when the database is still being built (trial); the search parses
  // the query itself, so it is parsed here only on that path.
  const dbNames = await queryFirst(
    () => checkDatabases(search, q.db_names, types, MAX_SYNC_DATABASES, true),
    () => parseQuery(q.search_input, ['query', 'search_input']),
  );
  const filters = q.filter_molecules ? checkFilters(search, q.filtering ?? []) : [];
  const ordering = checkOrderings(search, requested);
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
  return searchPayload(result, types, dbNames, remark);
}

/** The catalog search types a ranked type needs the database to serve (consensus: all three). */
const servedTypes = (types: MolsearchType[]): SearchType[] => [
  ...new Set(
    types.flatMap((t): SearchType[] =>
      t === 'consensus' ? ['morgan', 'espsim_shape', 'espsim_electrostatic'] : [t],
    ),
  ),
];

/**
 * 3D types, consensus, several types in one call, and the dissimilarity orderings
 * (docs/chem3d.md): 503 without a 3D worker, 4xx until the databases are 3D-ready.
 */
async function molsearch3d(
  search: SearchService,
  q: Partial<MolsearchQueryT> & Static<typeof MolsearchSimpleQuery>,
  searchTypes: MolsearchType[],
  requested: string[],
  { k, remark }: { k: number; remark?: string },
  shape?: ShapeSearchService,
) {
  const types = servedTypes(searchTypes);
  if (!shape) {
    // Databases without 3D data answer the usual 422 naming the types they serve.
    checkDatabases(search, q.db_names, types);
    throw new DomainError('capability_unavailable', '3D search types are not configured on this deployment');
  }
  const other = searchTypes.filter((t) => !(RANKED_TYPES as readonly string[]).includes(t));
  if (other.length)
    throw validationError(
      ['query', 'search_type'],
      `${other.join(', ')} cannot be combined with 3D search types or orderings; allowed together: ${RANKED_TYPES.join(', ')}`,
    );
  for (const o of requested)
    if (!(ORDERINGS as readonly string[]).includes(o))
      throw validationError(
        ['query', 'ordering'],
        `unknown ordering ${JSON.stringify(o)}; allowed: ${ORDERINGS.join(', ')}`,
      );
  const filters = q.filter_molecules ? checkFilters(search, q.filtering ?? []) : [];
  if (!q.search_input.trim()) throw validationError(['query', 'search_input'], 'empty SMILES');
  const dbNames = await databases3d(search, shape, q.db_names, types);
  const result = await shape.search({
    smiles: q.search_input,
    dbNames,
    k,
    types: searchTypes as RankedType[],
    ordering: requested as OrderingName[],
    quality: q.search_quality,
    descriptors: q.descriptors ?? false,
    properties: q.properties ?? false,
    filters,
  });
  return searchPayload(result, searchTypes, dbNames, remark);
}

/** The databases of a 3D request: the named ones once 3D-ready, else the default 3D database. */
export async function databases3d(
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

/** GET /molsearch and /molsearch_simple over the search service (/batch_search: search-batch.ts). */
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
    (request, reply) => molsearch(search, request.query, reply, shape, searchTypeNote(request)),
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
    (request, reply) => molsearch(search, request.query, reply, shape, searchTypeNote(request)),
  );
}
