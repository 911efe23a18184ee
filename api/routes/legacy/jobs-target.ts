/**
 * What a /submit_molsearch searches: catalogs checked for the search type (3D types on 3D-ready
 * databases), or one synthon space searched by a synthon job.
 */
import { validationError } from '../../../platform/errors.ts';
import type { SearchService, SearchType } from '../../services/search-service.ts';
import { THREE_D_TYPES, type ShapeSearchService } from '../../services/shape-search.ts';
import { checkDatabases } from './params.ts';
import { databases3d } from './search.ts';

/** Most databases one job may scan. */
export const MAX_JOB_DATABASES = 10;

/**
 * Checks the databases of a job and that the search type is one jobs serve: morgan, and the 3D
 * types on 3D-ready databases (a 422 saying when a database will be ready; without `db_names`
 * the largest 3D-ready one).
 */
export async function checkJobSearch(
  search: SearchService,
  dbNames: string[] | undefined,
  searchType: string,
  shape?: ShapeSearchService,
): Promise<string[]> {
  if ((THREE_D_TYPES as readonly string[]).includes(searchType) && shape) {
    const names = await databases3d(search, shape, dbNames, [searchType as SearchType]);
    return checkDatabases(search, names, [searchType as SearchType], MAX_JOB_DATABASES);
  }
  if (searchType !== 'morgan') {
    throw validationError(
      ['query', 'search_type'],
      `jobs serve morgan${shape ? ', espsim_shape and espsim_electrostatic' : ''} (got ${searchType})`,
      'value_error.unavailable',
    );
  }
  return checkDatabases(search, dbNames, [searchType as SearchType], MAX_JOB_DATABASES);
}

export const SYNTHON_SIMILARITY_DEFAULTS = {
  include_metadata: false,
  include_synthons: false,
  synthon_scorer: 'morgan',
  search_mode: 'similarity',
  structure_match_mode: 'fuzzy',
  smarts_prefilter_pattern_id: '',
  smarts_prefilter_pattern_label: '',
  smarts_prefilter_pattern_smarts: '',
  smarts_prefilter_mode: 'include',
  synthon_search_backend: 'exact_sss',
};

/**
 * The synthon space a /submit_molsearch names (search_type=synthongpt, or morgan on a space), or
 * undefined for catalogs. A job searches one space alone: mixing it with others is a 422.
 */
export function synthonTarget(
  search: SearchService,
  dbNames: string[] | undefined,
  searchType: string,
): { space?: string } | undefined {
  const names = (dbNames ?? [])
    .flatMap((n) => n.split(','))
    .map((n) => n.trim())
    .filter(Boolean);
  const spaces = new Set(
    search
      .databases()
      .filter((d) => d.kind === 'synthon')
      .map((d) => d.id),
  );
  const named = names.filter((n) => spaces.has(n));
  // A space still being built is named as coming, not as "not a synthon space" (user trial).
  for (const n of names) {
    const coming = spaces.has(n) ? undefined : search.notReady?.(n);
    if (coming) throw validationError(['query', 'db_names'], coming, 'value_error.not_ready');
  }
  if (searchType !== 'synthongpt' && !named.length) return undefined;
  if (searchType !== 'synthongpt' && searchType !== 'morgan')
    throw validationError(
      ['query', 'search_type'],
      `synthon spaces are searched with morgan or synthongpt (got ${searchType})`,
    );
  // No database named: the default (largest) space.
  if (!names.length) return {};
  if (named.length !== 1 || names.length !== 1)
    throw validationError(
      ['query', 'db_names'],
      `a synthongpt job searches exactly one synthon space (${[...spaces].join(', ') || 'none installed'}), got ${JSON.stringify(names)}`,
    );
  return { space: named[0] };
}
