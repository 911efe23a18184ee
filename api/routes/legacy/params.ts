import { Type } from '@sinclair/typebox';
import { DomainError, validationError } from '../../../platform/errors.ts';
import { comingNote } from '../../services/pending-databases.ts';
import {
  FILTERS,
  ORDERINGS,
  SEARCH_QUALITIES,
  SEARCH_TYPES,
  type FilterName,
  type OrderingName,
  type SearchService,
  type SearchType,
} from '../../services/search-service.ts';

/** A sample query used as the documented default of search_input (aspirin). */
export const SAMPLE_SMILES = 'CC(=O)Oc1ccccc1C(=O)O';
export const MAX_SYNC_NEIGHBORS = 100;
export const MAX_SYNC_DATABASES = 2;
/** The bound of every integer parameter without a smaller one (the database's `integer`). */
export const INT32_MAX = 2_147_483_647;

const enumOf = <T extends readonly string[]>(values: T, description?: string) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    { description },
  );

export const SearchTypeSchema = enumOf(SEARCH_TYPES, 'Search kind');
export const SearchQualitySchema = enumOf(
  SEARCH_QUALITIES,
  'Search quality; "very accurate" is accepted as very_accurate',
);
export const BoolParam = (def: boolean, description: string) => Type.Boolean({ default: def, description });
/** Filters and orderings are checked by hand so the 422 can list the values available now. */
export const FilteringSchema = Type.Array(Type.String(), {
  default: ['No solvents'],
  description: `Filters: ${FILTERS.join(', ')}`,
});
export const OrderingSchema = Type.Array(Type.String(), {
  default: ['Similarity'],
  description: `Orderings: ${ORDERINGS.join(', ')}`,
});

/**
 * The database searched when a request names none: the service's default (the synthon space once
 * it is built) when the operation searches synthon spaces and the default serves every requested
 * type; otherwise the largest enumerated catalog serving them (operations that read catalog rows,
 * search types a space does not serve), so a request without db_names never fails on the default.
 */
export function defaultDatabaseFor(
  search: SearchService,
  searchTypes: SearchType[],
  acceptsSpaces: boolean,
): string {
  const dbs = search.databases();
  const serves = (d: (typeof dbs)[number]) => searchTypes.every((t) => d.searchTypes.includes(t));
  const def = dbs.find((d) => d.id === search.defaultDatabase());
  if (def && (acceptsSpaces || def.kind !== 'synthon') && serves(def)) return def.id;
  const catalogs = dbs.filter((d) => d.kind !== 'synthon').sort((a, b) => b.molecules - a.molecules);
  const catalog = catalogs.find(serves);
  if (catalog || !acceptsSpaces) return (catalog ?? catalogs[0])?.id ?? search.defaultDatabase();
  // Only synthon spaces serve these types (synthongpt): the largest ready one, unless a larger one
  // is still being built (the default space's first minutes), which is said rather than a catalog
  // the client never named (user trial: "synthongpt is not available for database zinc15_sample").
  const bySize = <T extends { molecules: number }>(a: T, b: T) => b.molecules - a.molecules;
  const spaces = dbs.filter((d) => d.kind === 'synthon' && serves(d)).sort(bySize);
  const building = (search.pending?.() ?? [])
    .filter((p) => p.kind === 'synthon' && p.build.status === 'building')
    .filter((p) => p.molecules > (spaces[0]?.molecules ?? 0))
    .sort(bySize)[0];
  if (building)
    throw validationError(
      ['query', 'db_names'],
      `db_names not sent, and the default (largest) synthon space is not ready: ${building.build.message}; ` +
        `or name a ready synthon space (${spaces.map((d) => d.id).join(', ') || 'none yet'})`,
      'value_error.not_ready',
    );
  return spaces[0]?.id ?? catalogs[0]?.id ?? search.defaultDatabase();
}

/**
 * Checks the databases exist, that there are at most `max`, and that each serves the search type.
 * Without db_names the default is `defaultDatabaseFor` (`acceptsSpaces`: the operation searches
 * synthon spaces).
 */
export function checkDatabases(
  search: SearchService,
  dbNames: string[] | undefined,
  searchTypes: SearchType[],
  max = MAX_SYNC_DATABASES,
  acceptsSpaces = false,
): string[] {
  const names =
    dbNames && dbNames.length
      ? [
          ...new Set(
            dbNames
              .flatMap((n) => n.split(','))
              .map((n) => n.trim())
              .filter(Boolean),
          ),
        ]
      : [defaultDatabaseFor(search, searchTypes, acceptsSpaces)];
  // `db_names=` names no database: a 422, not a search of nothing with zero neighbours.
  if (!names.length)
    throw validationError(
      ['query', 'db_names'],
      `empty value; available: ${search
        .databases()
        .map((d) => d.id)
        .join(', ')}` + comingNote(search.pending?.() ?? []),
      'value_error.empty',
    );
  if (names.length > max)
    throw validationError(
      ['query', 'db_names'],
      `at most ${max} databases per search, got ${names.length}`,
      'value_error.too_many',
    );
  const known = new Map(search.databases().map((d) => [d.id, d]));
  for (const name of names) {
    const db = known.get(name);
    const coming = db ? undefined : search.notReady?.(name);
    if (coming) throw validationError(['query', 'db_names'], coming, 'value_error.not_ready');
    if (!db)
      throw validationError(
        ['query', 'db_names'],
        `unknown database ${JSON.stringify(name)}; available: ${[...known.keys()].join(', ')}` +
          comingNote(search.pending?.() ?? []),
      );
    for (const t of searchTypes) {
      if (!db.searchTypes.includes(t)) {
        throw validationError(
          ['query', 'search_type'],
          `search type ${t} is not available for database ${name}; available search types: ${db.searchTypes.join(', ')}`,
          'value_error.unavailable',
        );
      }
    }
  }
  return names;
}

/**
 * For operations over enumerated catalogs only (their rows are read directly): a synthon space
 * among `names` is a 422 on db_names, not a later 404 from the catalog store.
 */
export function refuseSynthonSpaces(search: SearchService, names: string[], operation: string): void {
  const spaces = new Set(search.databases().flatMap((d) => (d.kind === 'synthon' ? [d.id] : [])));
  const bad = names.filter((n) => spaces.has(n));
  if (bad.length)
    throw validationError(
      ['query', 'db_names'],
      `${bad.map((n) => JSON.stringify(n)).join(', ')} ${bad.length > 1 ? 'are synthon spaces' : 'is a synthon space'}; ` +
        `synthon spaces are not supported by ${operation}, only enumerated catalogs`,
      'value_error.unavailable',
    );
}

export function checkNeighbors(n: number, max = MAX_SYNC_NEIGHBORS, field = 'n_neighbors'): number {
  if (n < 1) throw validationError(['query', field], 'must be at least 1');
  if (n > max)
    throw validationError(
      ['query', field],
      `at most ${max} molecules per synchronous search (got ${n}); use /submit_molsearch for larger searches`,
      'value_error.too_large',
    );
  return n;
}

/**
 * The synchronous searches answer at most `max` molecules; clients of the hosted service ask for
 * more (its example client defaults to 10,000) and expect rows, so a larger n_neighbors is capped,
 * with a remark saying so, instead of a 422 that leaves them with nothing.
 */
export function capNeighbors(n: number, max = MAX_SYNC_NEIGHBORS): { k: number; remark?: string } {
  if (n < 1) throw validationError(['query', 'n_neighbors'], 'must be at least 1');
  if (n <= max) return { k: n };
  return {
    k: max,
    remark: `n_neighbors ${n} capped at ${max}: synchronous searches return at most ${max} molecules; use /submit_molsearch for more.`,
  };
}

export function checkFilters(search: SearchService, values: string[]): FilterName[] {
  const available = search.availableFilters();
  for (const v of values) {
    if (!(FILTERS as readonly string[]).includes(v))
      throw validationError(
        ['query', 'filtering'],
        `unknown filter ${JSON.stringify(v)}; allowed: ${available.join(', ')}`,
      );
    if (!available.includes(v as FilterName))
      throw validationError(
        ['query', 'filtering'],
        `filter ${JSON.stringify(v)} is not available yet; available: ${available.join(', ')}`,
        'value_error.unavailable',
      );
  }
  return values as FilterName[];
}

export function checkOrderings(search: SearchService, values: string[]): OrderingName[] {
  const available = search.availableOrderings();
  for (const v of values) {
    if (!(ORDERINGS as readonly string[]).includes(v))
      throw validationError(
        ['query', 'ordering'],
        `unknown ordering ${JSON.stringify(v)}; allowed: ${available.join(', ')}`,
      );
    if (!available.includes(v as OrderingName))
      throw validationError(
        ['query', 'ordering'],
        `ordering ${JSON.stringify(v)} is not available yet; available: ${available.join(', ')}`,
        'value_error.unavailable',
      );
  }
  return values as OrderingName[];
}

/**
 * A database check that, when it finds a database not ready yet, first checks the query
 * (`query` throws its own 422): a bad SMILES is named before "retry when it is ready", which the
 * client would otherwise act on only to be told then (user trial).
 */
export async function queryFirst<T>(check: () => T | Promise<T>, query: () => Promise<unknown>): Promise<T> {
  try {
    return await check();
  } catch (e) {
    if (e instanceof DomainError && e.issues.some((i) => i.type === 'value_error.not_ready')) await query();
    throw e;
  }
}
