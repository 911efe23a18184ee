/**
 * The v2 search's view of catalogs the scan fleet answers (FLEET_SEARCH, docs/scaling.md): the
 * API holds no row of them, so a search fans out (fleet-search.ts) and the rows the workers send
 * back become a small Library of their own, rendered by the same code as a catalog loaded here.
 */
import type { ShardData } from '../../engine/catalog/index.ts';
import {
  catalogLibraryInfo,
  shardsLibrary,
  type Library,
  type LibraryInfo,
} from '../../engine/selection/index.ts';
import type { LibraryRegistry } from '../../engine/selection/index.ts';
import { DomainError } from '../../platform/errors.ts';
import type { FleetCoverage, FleetSearch } from './fleet-search.ts';

export interface FleetLibraries {
  /** The catalog's facts (its whole row count), or undefined when the fleet does not answer it. */
  info(id: string): LibraryInfo | undefined;
  list(): LibraryInfo[];
  /** Whether the catalog's build saw prices (its manifest's `priced`; false when not recorded). */
  priced(id: string): boolean;
  /**
   * The k best rows of catalog `id` by Tanimoto to `fp` over the fleet: `lib` holds just those
   * rows, `rows` index it best first (score desc, then catalog order, as the pool ranks them),
   * `coverage` says which shards answered within the budget.
   */
  knn(
    id: string,
    fp: Uint8Array,
    k: number,
  ): Promise<{ lib: Library; rows: Int32Array; coverage: FleetCoverage }>;
}

export function fleetLibraries(fleet: FleetSearch): FleetLibraries {
  const byId = new Map(fleet.manifests.map((m) => [m.id, m]));
  return {
    info: (id) => {
      const m = byId.get(id);
      return m && catalogLibraryInfo(m);
    },
    list: () => fleet.manifests.map(catalogLibraryInfo),
    priced: (id) => byId.get(id)?.priced === true,
    async knn(id, fp, k) {
      const r = await fleet.knn([id], fp, k);
      // Each answered shard part once, in the order its first hit ranks.
      const start = new Map<ShardData, number>();
      const shards: ShardData[] = [];
      let rowsSoFar = 0;
      for (const h of r.hits) {
        const s = r.shardOf(h);
        if (start.has(s)) continue;
        start.set(s, rowsSoFar);
        shards.push(s);
        rowsSoFar += s.rows;
      }
      const lib = shardsLibrary(byId.get(id)!, shards);
      const rows = Int32Array.from(r.hits, (h) => start.get(r.shardOf(h))! + h.row);
      return { lib, rows, coverage: r.coverage };
    },
  };
}

/**
 * `base`, where naming a catalog the scan fleet holds is a 422 `capability_unavailable` saying why
 * (selections and runs score every row of a library, which the API does not hold), not an
 * "unknown database".
 */
export function refusingFleetCatalogs(
  base: LibraryRegistry,
  fleet: FleetSearch | undefined,
): LibraryRegistry {
  if (!fleet) return base;
  const held = new Set(fleet.manifests.map((m) => m.id));
  return {
    list: () => base.list(),
    async get(id) {
      const lib = await base.get(id);
      if (lib || !held.has(id)) return lib;
      throw new DomainError(
        'capability_unavailable',
        `${id} is held by the scan fleet: selections and runs need every row of a library; ` +
          'only POST /api/v2/search (Morgan/ECFP4) reaches it',
      );
    },
  };
}
