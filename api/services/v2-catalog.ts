/** The v2 catalog listing: the libraries served, with their capabilities and pricing. */
import type { LibraryInfo } from '../../engine/selection/index.ts';
import type { V2SearchServiceDeps } from './v2-search-common.ts';
import type { ThreeDStatus } from './three-d-status.ts';
import type { BuildState } from './pending-databases.ts';

/** One library of the listing; a database still being built has no release and no capability yet. */
export interface CatalogLibrary {
  database_id: string;
  name: string;
  vendor: string;
  website: string;
  contact: string;
  kind: 'enumerated' | 'synthon';
  release: string | null;
  database_release: string | null;
  product_count: number;
  reaction_count?: number;
  synthon_count?: number;
  capabilities: {
    search: boolean;
    search_cheese: string[];
    search_substructure: boolean;
    sample: boolean;
    selections: boolean;
    predicted_properties: boolean;
  };
  /** `constraints`: ['max_price'] where a selection's constraints.price can be applied (priced rows). */
  pricing: { available: boolean; currency: string | null; constraints: string[] };
  three_d: ThreeDStatus | null;
  /** `ready` (searchable), or the state of a build (`building`, `failed`). */
  status: 'ready' | BuildState['status'];
  searchable: boolean;
  build?: BuildState;
}

/** The libraries served, with capabilities and pricing availability. */
export function createV2Catalog(deps: V2SearchServiceDeps) {
  /** Scorers search_cheese serves on a library: morgan on every catalog, shape and esp once 3D-ready. */
  const cheeseScorers = (enumerated: boolean, ready: boolean): string[] =>
    enumerated && deps.rerank ? ['morgan', ...(ready ? ['shape', 'esp'] : [])] : [];

  return async function catalog(): Promise<{ libraries: CatalogLibrary[] }> {
    const libs = await deps.libraries.list();
    const threeD = await Promise.all(libs.map((l) => deps.threeD?.status(l.info.database_id) ?? null));
    return {
      libraries: [
        ...libs.map((l, i): CatalogLibrary => {
          const enumerated = l.info.kind === 'enumerated';
          const priced = Array.from({ length: Math.min(l.size, 1000) }, (_, i) => l.price(i)).some(
            (p) => p !== null,
          );
          return {
            database_id: l.info.database_id,
            name: l.info.name,
            vendor: l.info.vendor,
            website: l.info.website,
            contact: l.info.contact,
            kind: l.info.kind,
            release: l.info.release,
            database_release: l.info.release,
            product_count: l.size,
            capabilities: {
              search: true,
              search_cheese: cheeseScorers(enumerated, threeD[i]?.status === 'ready'),
              search_substructure: enumerated,
              sample: true,
              selections: enumerated,
              predicted_properties: l.info.predicted_property_ids.length > 0,
            },
            pricing: {
              available: priced,
              currency: priced ? 'USD' : null,
              constraints: priced ? ['max_price'] : [],
            },
            three_d: threeD[i] ?? null,
            status: 'ready',
            searchable: true,
          };
        }),
        ...(deps.fleet?.list() ?? []).map((info) => fleetEntry(info, deps.fleet!.priced(info.database_id))),
      ],
    };
  };
}

/** A catalog the scan fleet answers: Morgan search only (the API holds none of its rows). */
function fleetEntry(info: LibraryInfo, priced: boolean): CatalogLibrary {
  return {
    database_id: info.database_id,
    name: info.name,
    vendor: info.vendor,
    website: info.website,
    contact: info.contact,
    kind: info.kind,
    release: info.release,
    database_release: info.release,
    product_count: info.product_count,
    capabilities: {
      search: true,
      search_cheese: [],
      search_substructure: false,
      sample: false,
      selections: false,
      predicted_properties: info.predicted_property_ids.length > 0,
    },
    // Selections do not run on fleet catalogs, so no price constraint applies there.
    pricing: { available: priced, currency: priced ? 'USD' : null, constraints: [] },
    three_d: null,
    status: 'ready',
    searchable: true,
  };
}
