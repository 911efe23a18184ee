/**
 * The legacy result filters over catalog search candidates: `No solvents` and `Lipinsky` from the
 * catalog's stored columns on this thread (set lookups and four comparisons), `QED`, `PAINS`,
 * `Substructure` and `Superstructure` with RDKit on the filter pool's worker threads.
 */
import { rowRecord, type ShardData } from '../../engine/catalog/index.ts';
import { canonicalize, type RDKitModule } from '../../engine/chem/index.ts';
import {
  createSolventFilter,
  LIPINSKI_COLUMNS,
  QED_THRESHOLD,
  RDKIT_FILTERS,
  lipinskiPass,
  type FilterPool,
  type LipinskiInput,
  type QedBaseDescriptors,
} from '../../engine/filters/index.ts';
import type { FilterName, NeighborRow } from './search-service.ts';
import { requestLimits } from './request-limits.ts';

/**
 * How many candidates to rank when filters may drop some, so `k` survive when possible (the
 * Morgan and the 3D paths over-fetch alike).
 */
export const FILTER_OVERFETCH = (k: number) => Math.min(5000, k * 4 + 50);

export interface FilterCandidate {
  row: NeighborRow;
  shard: ShardData;
  /** Row index of the candidate in `shard`. */
  index: number;
}

export interface CatalogFilters {
  /**
   * Keeps, in the given order, the first `k` candidates that pass every filter (RDKit filters run
   * in chunks in that order and stop once `k` survive, so results equal filter-all-then-truncate).
   * With `QED` among the filters, kept rows carry a `QED` score. `query` is the search's query
   * SMILES (for a centroid, the inputs joined with '.'): the reference of the structure filters.
   */
  apply(
    candidates: FilterCandidate[],
    filters: readonly FilterName[],
    query: string,
    k: number,
  ): Promise<{ rows: NeighborRow[]; remarks: string[] }>;
}

const QED_BASE_COLUMNS = [
  'molecular_weight',
  'clogp',
  'h_bond_donor',
  'topological_surface_area_mapping',
  'rotatable_bonds',
] as const;

function stored<T>(c: FilterCandidate, columns: readonly string[]): T {
  const r = rowRecord(c.shard, c.index, columns);
  return Object.fromEntries(columns.map((n) => [n, typeof r[n] === 'number' ? r[n] : NaN])) as T;
}

export function createCatalogFilters(deps: {
  isSolvent: (canonicalSmiles: string) => boolean;
  filterPool: FilterPool;
}): CatalogFilters {
  return {
    async apply(candidates, filters, query, k) {
      const remarks: string[] = [];
      let cands = candidates;
      const cheap = (name: FilterName, pass: (c: FilterCandidate) => boolean, what: string) => {
        if (!filters.includes(name)) return;
        const before = cands.length;
        cands = cands.filter(pass);
        if (cands.length < before)
          remarks.push(`${before - cands.length} ${what} removed by the '${name}' filter.`);
      };
      cheap('No solvents', (c) => !deps.isSolvent(c.row.smiles), 'solvent(s)');
      cheap(
        'Lipinsky',
        (c) => lipinskiPass(stored<LipinskiInput>(c, LIPINSKI_COLUMNS)),
        'molecule(s) breaking the rule of five',
      );
      const chem = filters.filter((f) => (RDKIT_FILTERS as readonly string[]).includes(f));
      if (!chem.length) return { rows: cands.slice(0, k).map((c) => c.row), remarks };
      const kept: NeighborRow[] = [];
      let removed = 0;
      // The first chunk usually suffices; later chunks only run when too many candidates fail.
      for (
        let start = 0, size = Math.max(32, Math.ceil(k * 1.5));
        start < cands.length && kept.length < k;
        start += size, size *= 2
      ) {
        const chunk = cands.slice(start, start + size);
        const r = await deps.filterPool.evaluate(
          chunk.map((c) => c.row.smiles),
          chem,
          {
            query,
            descriptors: chem.includes('QED')
              ? chunk.map((c) => stored<QedBaseDescriptors>(c, QED_BASE_COLUMNS))
              : undefined,
            ...requestLimits(),
          },
        );
        chunk.forEach((c, i) => {
          if (!r.pass[i]) return void removed++;
          if (kept.length < k) kept.push(r.qed ? { ...c.row, QED: r.qed[i] } : c.row);
        });
      }
      if (removed)
        remarks.push(
          `${removed} molecule(s) removed by the ${chem.map((f) => `'${f}'`).join(', ')} filter(s)${chem.includes('QED') ? ` (QED >= ${QED_THRESHOLD})` : ''}.`,
        );
      return { rows: kept, remarks };
    },
  };
}

/** The filters with the solvent list canonicalized by `rd`, RDKit filters on `filterPool`. */
export function catalogFiltersFor(rd: RDKitModule, filterPool: FilterPool): CatalogFilters {
  return createCatalogFilters({ isSolvent: createSolventFilter((s) => canonicalize(rd, s)), filterPool });
}
