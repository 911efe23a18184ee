import { openCatalog, rowRecord, type Catalog, type ShardData } from '../../engine/catalog/index.ts';
import { loadShard3d, molecule3d, type Shard3d } from '../../engine/catalog/three-d-reader.ts';
import { DESCRIPTOR_NAMES } from '../../engine/chem/index.ts';
import type { SearchPool } from '../../engine/search/index.ts';
import {
  chargeGridDescriptors,
  describeConformers,
  gridConformers,
  gridDescriptors,
  prepareShape,
  type GridTables,
  type ShapePool,
} from '../../engine/shape/index.ts';
import { validationError } from '../../platform/errors.ts';
import type { QueryEmbedder } from './query-embedder.ts';
import type { NeighborRow, SimilarityResult } from './search-service.ts';
import type { ThreeDStatusService } from './three-d-status.ts';

export const THREE_D_TYPES = ['espsim_shape', 'espsim_electrostatic'] as const;
export type ThreeDType = (typeof THREE_D_TYPES)[number];

/** Shortlist sizes of the first stage by `search_quality`; `very_accurate` scores every row. */
export function shortlistSize(quality: string | undefined, k: number): number {
  if (quality === 'very_accurate' || quality === 'very accurate') return Infinity;
  const n = quality === 'accurate' ? 1000 : /^\d+$/.test(quality ?? '') ? Number(quality) : 100;
  return Math.max(n, k);
}

/**
 * Catalogs with at most this many conformers get grid tables for the first stage (2 × 540 bytes
 * per conformer: ~108 MB at the limit); larger ones are screened by the sidecars' USRCAT-style
 * descriptors, which recall the exact ranking far less (bench/shape/README.md).
 */
export const GRID_MAX_CONFORMERS = 100_000;

/** A loaded shard: its sidecar and, for catalogs within GRID_MAX_CONFORMERS, its grid tables. */
type LoadedShard = Shard3d & { grids?: GridTables };

export interface ShapeSearchRequest {
  smiles: string;
  dbNames: string[];
  k: number;
  types: ThreeDType[];
  quality?: string;
  descriptors: boolean;
  /** Where the query came from, for a 422 when it cannot be embedded (default query.search_input). */
  loc?: (string | number)[];
}

export interface ShapeSearchService {
  /** The 3D-ready database a 3D request without `db_names` searches (largest ready), or undefined. */
  defaultDatabase(): Promise<string | undefined>;
  /** 4xx naming `db_names` unless every database is 3D-ready (with its stage's progress). */
  checkReady(dbNames: string[]): Promise<void>;
  search(req: ShapeSearchRequest): Promise<SimilarityResult>;
}

/**
 * espsim_shape / espsim_electrostatic over 3D-ready catalogs: the query is embedded by the chem3d
 * worker, every row's conformers are screened by USRCAT-style descriptors (first stage, stored in
 * the sidecars), and the shortlist is aligned and scored exactly on the shape pool's threads
 * (engine/shape). Rows carry `Shapesim` and `Espsim` (both computed at the best shape alignment).
 */
export function createShapeSearch(deps: {
  catalogs: Catalog[];
  pool: SearchPool;
  shapePool: ShapePool;
  embedder: QueryEmbedder;
  threeD: ThreeDStatusService;
}): ShapeSearchService {
  const byId = new Map(deps.catalogs.map((c) => [c.manifest.id, c]));
  const loaded = new Map<string, Promise<LoadedShard[]>>();
  const shards3d = (id: string): Promise<LoadedShard[]> => {
    let p = loaded.get(id);
    if (!p) {
      p = (async () => {
        const c = await openCatalog(byId.get(id)!.dir);
        const shards: LoadedShard[] = await Promise.all(c.manifest.shards.map((_, i) => loadShard3d(c, i)));
        if (shards.reduce((n, s) => n + gridConformers(s), 0) <= GRID_MAX_CONFORMERS)
          // Built once per catalog on the pool's threads (~2 ms per conformer), never this event loop.
          await Promise.all(shards.map(async (s) => (s.grids = await deps.shapePool.gridTables(s))));
        return shards;
      })();
      p.catch(() => loaded.delete(id));
      loaded.set(id, p);
    }
    return p;
  };

  return {
    async defaultDatabase() {
      const ready = [];
      for (const c of deps.catalogs)
        if ((await deps.threeD.status(c.manifest.id))?.status === 'ready') ready.push(c);
      return ready.sort((a, b) => b.manifest.counts.molecules - a.manifest.counts.molecules)[0]?.manifest.id;
    },

    async checkReady(dbNames) {
      for (const name of dbNames) {
        const s = await deps.threeD.status(name);
        if (!s || s.status === 'ready') continue; // unknown names: the usual check names them
        const p = s.progress;
        // Estimated from this run's own rate, once a part has completed.
        const eta =
          p && p.moleculesDone > 0 && p.moleculesDone < p.moleculesTotal
            ? `, about ${Math.ceil((((Date.now() - p.startedAt) / p.moleculesDone) * (p.moleculesTotal - p.moleculesDone)) / 60_000)} min to go`
            : '';
        const when =
          s.status === 'building' && p
            ? `its 3D stage is running: ${p.moleculesDone} of ${p.moleculesTotal} molecules embedded${eta}; retry when it completes (GET /available_databases_full shows the progress)`
            : 'its 3D stage has not been run (molsearch start runs it for bundled catalogs; see docs/chem3d.md)';
        throw validationError(
          ['query', 'db_names'],
          `database ${name} is not 3D-ready yet: ${when}`,
          'value_error.not_ready',
        );
      }
    },

    async search(req) {
      const t0 = performance.now();
      const query = await deps.embedder.embed(req.smiles, req.loc);
      const t1 = performance.now();
      const metric = req.types[0] === 'espsim_electrostatic' ? 'esp' : 'shape';
      const limit = shortlistSize(req.quality, req.k);
      const loadedDbs = await Promise.all(
        req.dbNames.map(async (db) => ({ db, shards: await shards3d(db) })),
      );
      // Grid first stage (shape grid for espsim_shape, charge grid for espsim_electrostatic) when
      // every database has grid tables, so the shards' first-stage scores compare when merged.
      const grid = loadedDbs.every((d) => d.shards.every((s) => s.grids));
      const qd = !grid
        ? describeConformers(query)
        : metric === 'esp'
          ? chargeGridDescriptors(prepareShape(query))
          : gridDescriptors(prepareShape(query));
      type Cand = { db: string; shard: number; row: number; score: number };
      let cands: Cand[] = [];
      let rows = 0;
      // The first stage scans every shard on the shape pool's threads, never this event loop;
      // candidates are gathered in shard order so ties rank as in a serial scan.
      const scans: Promise<Cand[]>[] = [];
      for (const { db, shards } of loadedDbs) {
        for (const s of shards) {
          rows += s.rows;
          const k = Math.min(limit, s.rows);
          const scan =
            grid && s.grids
              ? metric === 'esp'
                ? deps.shapePool.scanGrid(qd, s.grids.charge, k, 'cosine')
                : deps.shapePool.scanGrid(qd, s.grids.shape, k, 'tanimoto')
              : deps.shapePool.scanShortlist(qd, s.table, k);
          scans.push(
            scan.then((sl) =>
              Array.from(sl.rows, (row, i) => ({ db, shard: s.index, row, score: sl.scores[i] })).filter(
                (c) => s.confCounts[c.row] > 0,
              ),
            ),
          );
        }
      }
      cands = (await Promise.all(scans)).flat();
      cands = cands.sort((a, b) => b.score - a.score).slice(0, limit);
      const t2 = performance.now();
      const sets = await Promise.all(
        cands.map(async (c) => molecule3d((await shards3d(c.db))[c.shard], c.row)!),
      );
      const hits = await deps.shapePool.scoreShortlist(query, sets, { metric, k: req.k });
      const t3 = performance.now();
      const out: NeighborRow[] = hits.map((h) => {
        const c = cands[h.index];
        const shard = deps.pool.shard(c.db, c.shard) as ShardData;
        const rec = rowRecord(shard, c.row, [
          'product_id',
          'smiles',
          ...(req.descriptors ? DESCRIPTOR_NAMES : []),
        ]);
        const { product_id, smiles, ...rest } = rec;
        return {
          smiles: String(smiles),
          id: String(product_id),
          database: c.db,
          db_id: String(product_id),
          similarity: metric === 'esp' ? h.esp : h.shape,
          Shapesim: h.shape,
          Espsim: h.esp,
          ...rest,
        } as NeighborRow;
      });
      const ms = (a: number, b: number) => Math.round(b - a);
      return {
        canonical: req.smiles,
        rows: out,
        remarks: [
          `3D ${metric} search: query embedded with ${query.confCount} conformer(s) in ${ms(t0, t1)} ms; ` +
            `first stage (${grid ? (metric === 'esp' ? 'charge grid' : 'shape grid') : 'USRCAT descriptors'}) screened ${rows} rows in ${ms(t1, t2)} ms, ${cands.length} aligned and scored exactly in ${ms(t2, t3)} ms.`,
        ],
      };
    },
  };
}
