/**
 * Where selections, v2 search and runs find libraries by database id. A registry over the catalog
 * directory opens each catalog once, on first use; a static registry serves given libraries.
 */
import { listCatalogs, type Catalog } from '../catalog/reader.ts';
import { openCatalogLibrary, type PoolKnn } from './catalog-library.ts';
import type { Library } from './library.ts';

export interface LibraryRegistry {
  get(databaseId: string): Promise<Library | undefined>;
  /** Every library served, sorted by id. */
  list(): Promise<Library[]>;
  /** The ids list() would give, without opening any library (for error messages). */
  ids?(): Promise<string[]>;
}

/** A registry of already-built libraries. */
export function staticRegistry(libraries: Library[]): LibraryRegistry {
  const byId = new Map(libraries.map((l) => [l.info.database_id, l]));
  const sorted = [...libraries].sort((a, b) => a.info.database_id.localeCompare(b.info.database_id));
  return {
    get: async (id) => byId.get(id),
    list: async () => sorted,
    ids: async () => sorted.map((l) => l.info.database_id),
  };
}

/**
 * A registry over the catalogs in `catalogDir` (or those `catalogs` lists, e.g. with the published
 * ones), restricted to `ids` when non-empty, opened lazily and cached.
 */
export function catalogRegistry(
  catalogDir: string,
  opts: { ids?: string[]; pool?: PoolKnn; catalogs?: () => Promise<Catalog[]> } = {},
): LibraryRegistry {
  let all: Promise<Map<string, () => Promise<Library>>> | undefined;
  const opened = new Map<string, Promise<Library>>();
  const index = () =>
    (all ??= (opts.catalogs?.() ?? listCatalogs(catalogDir)).then((cats) => {
      const m = new Map<string, () => Promise<Library>>();
      for (const c of cats)
        if (!opts.ids?.length || opts.ids.includes(c.manifest.id))
          m.set(c.manifest.id, () => openCatalogLibrary(c, opts.pool));
      return m;
    }));
  const get = async (id: string) => {
    const open = (await index()).get(id);
    if (!open) return undefined;
    let p = opened.get(id);
    if (!p) {
      p = open();
      opened.set(id, p);
      p.catch(() => opened.delete(id));
    }
    return p;
  };
  return {
    get,
    async list() {
      const ids = [...(await index()).keys()].sort();
      return Promise.all(ids.map(async (id) => (await get(id))!));
    },
    ids: async () => [...(await index()).keys()].sort(),
  };
}
