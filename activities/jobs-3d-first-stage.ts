/**
 * The first stage of a 3D job's shard scan (docs/search.md, "3D jobs"): the synchronous search's
 * own per-shard ranking (api/services/shape-stages.ts firstStage), so that a job's shortlist of a
 * shard holds every row the synchronous search shortlists from that shard at the same quality.
 * That is the shape grid (or, for espsim_electrostatic, the ESP pre-stage over the pose-aware charge
 * grid's pool: engine/shape/esp-prescreen.ts) when every
 * catalog of the job is within GRID_MAX_CONFORMERS, else the sidecars' USRCAT-style descriptors,
 * which the synchronous search also falls back to then. Grid tables are built per shard on the
 * shape pool's threads (bulk lane) and kept in a byte-bounded cache.
 */
import { join } from 'node:path';
import { createLru } from '../platform/lru.ts';
import { openCatalog } from '../engine/catalog/reader.ts';
import type { Shard3d } from '../engine/catalog/three-d-reader.ts';
import type { Molecule3d } from '../engine/catalog/three-d-schema.ts';
import {
  describeConformers,
  espPoolRows,
  gridDescriptors,
  GRID_MAX_CONFORMERS,
  prepareShape,
  type GridTables,
  type ShapeMetric,
  type ShapePool,
  type Shortlist,
} from '../engine/shape/index.ts';

/** Which ranking shortlisted a shard (the job's log and tests say which). */
export type JobFirstStageMethod = 'shape grid' | 'ESP pre-stage' | 'USRCAT descriptors';

export interface JobFirstStage {
  /**
   * The `k` best rows of a shard by the synchronous search's first-stage ranking for `metric`
   * (rows without conformers dropped, as there), given the job's catalogs.
   */
  shortlist(input: {
    query: Molecule3d;
    shard: Shard3d;
    catalog: string;
    catalogs: string[];
    metric: ShapeMetric;
    k: number;
  }): Promise<{ rows: Int32Array; method: JobFirstStageMethod }>;
}

export function createJobFirstStage(deps: {
  catalogDir: string;
  pool: () => ShapePool;
  /** Conformers up to which a catalog is screened by grids (default GRID_MAX_CONFORMERS; tests lower it). */
  gridMaxConformers?: number;
}): JobFirstStage {
  const gridMax = deps.gridMaxConformers ?? GRID_MAX_CONFORMERS;
  // Whether a catalog gets grid tables in the synchronous search: its conformers (manifest counts,
  // the sum of the sidecars' conformer counts the synchronous search checks) within the limit.
  const gridSized = new Map<string, Promise<boolean>>();
  const withinGrid = (catalog: string): Promise<boolean> => {
    let p = gridSized.get(catalog);
    if (!p) {
      p = openCatalog(join(deps.catalogDir, catalog)).then((c) => {
        const n = c.manifest.three_d?.counts.conformers;
        return n !== undefined && n <= gridMax;
      });
      p.catch(() => gridSized.delete(catalog));
      gridSized.set(catalog, p);
    }
    return p;
  };
  // 2 × 540 bytes per conformer; a shard of a grid-sized catalog holds at most ~108 MB.
  const grids = createLru<Promise<GridTables>>({
    maxBytes: 512 * 2 ** 20,
    maxEntries: 256,
    size: (t) => t.shape.descriptors.byteLength + t.charge.descriptors.byteLength,
  });
  const gridsOf = (catalog: string, s: Shard3d): Promise<GridTables> => {
    const key = `${catalog}/${s.index}`;
    let p = grids.get(key);
    if (!p) {
      p = deps.pool().gridTables(s);
      p.catch(() => grids.delete(key));
      grids.set(key, p);
    }
    return p;
  };

  return {
    async shortlist({ query, shard: s, catalog, catalogs, metric, k }) {
      const ro = { lane: 'bulk' as const };
      const grid = (await Promise.all([...new Set([catalog, ...catalogs])].map(withinGrid))).every(Boolean);
      let sl: Shortlist;
      let method: JobFirstStageMethod;
      if (!grid) {
        sl = await deps.pool().scanShortlist(describeConformers(query), s.table, k, ro);
        method = 'USRCAT descriptors';
      } else {
        const tables = await gridsOf(catalog, s);
        const p = prepareShape(query);
        if (metric === 'esp') {
          sl = await deps.pool().scanEspPrescreen(query, tables, s, k, espPoolRows(k), ro);
          method = 'ESP pre-stage';
        } else {
          sl = await deps.pool().scanGrid(gridDescriptors(p), tables.shape, k, 'tanimoto', ro);
          method = 'shape grid';
        }
      }
      return { rows: Int32Array.from(sl.rows).filter((row) => s.confCounts[row] > 0), method };
    },
  };
}
