/** The v2 catalog listing: the libraries served, with their capabilities and pricing. */
import type { LibraryInfo } from '../../engine/selection/index.ts';
import type { V2SearchServiceDeps } from './v2-search-common.ts';

/** The libraries served, with capabilities and pricing availability. */
export function createV2Catalog(deps: V2SearchServiceDeps) {
  /** Scorers search_cheese serves on a library: morgan on every catalog, shape and esp once 3D-ready. */
  const cheeseScorers = (enumerated: boolean, ready: boolean): string[] =>
    enumerated && deps.rerank ? ['morgan', ...(ready ? ['shape', 'esp'] : [])] : [];

  return async function catalog() {
    const libs = await deps.libraries.list();
    const threeD = await Promise.all(libs.map((l) => deps.threeD?.status(l.info.database_id) ?? null));
    return {
      libraries: [
        ...libs.map((l, i) => {
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
            pricing: { available: priced, currency: priced ? 'USD' : null },
            three_d: threeD[i] ?? null,
          };
        }),
        ...(deps.fleet?.list() ?? []).map((info) => fleetEntry(info, deps.fleet!.priced(info.database_id))),
      ],
    };
  };
}

/** A catalog the scan fleet answers: Morgan search only (the API holds none of its rows). */
function fleetEntry(info: LibraryInfo, priced: boolean) {
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
    pricing: { available: priced, currency: priced ? 'USD' : null },
    three_d: null,
  };
}
