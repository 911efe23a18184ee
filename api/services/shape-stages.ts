/**
 * The stages every 3D search path shares (docs/chem3d.md, "The 3D search path"): the first-stage
 * shortlist over the stored descriptors, Morgan candidates from the search pool, and the exact
 * stage that gives every candidate its shape, ESP and Morgan scores. /molsearch (one query, one or
 * several types, consensus), /batch_search centroid (several queries, mean scores) and
 * /api/v2/search_cheese (proposal + rerank) are built from these.
 *
 * Every shape-pool call carries the limits of the HTTP request it serves (request-limits.ts: the
 * 30 s whole-life deadline, the client's abort signal) and a lane by the request's size
 * (`shapeLane`: queries × rows), so a big 3D request never stalls a small one (engine/shape/pool.ts).
 */
import { openCatalog, type Catalog, type ShardData } from '../../engine/catalog/index.ts';
import { loadShard3d, molecule3d, type Shard3d } from '../../engine/catalog/three-d-reader.ts';
import type { Molecule3d } from '../../engine/catalog/three-d-schema.ts';
import { FP_BYTES, tanimoto } from '../../engine/chem/index.ts';
import { meanOverQueries } from '../../engine/search/fusion.ts';
import type { SearchPool } from '../../engine/search/index.ts';
import {
  chargeGridDescriptors,
  describeConformers,
  espPoolRows,
  gridConformers,
  gridDescriptors,
  GRID_MAX_CONFORMERS,
  prepareShape,
  shapeLane,
  type GridTables,
  type ShapePool,
  type ShapeRunOptions,
} from '../../engine/shape/index.ts';
import { requestLimits } from './request-limits.ts';
import type { Candidate, ShapeStages } from './shape-candidates.ts';

/** Catalogs within this many conformers get grid tables (engine/shape/grid-tables.ts). */
export { GRID_MAX_CONFORMERS };

/** A loaded shard: its sidecar and, for catalogs within GRID_MAX_CONFORMERS, its grid tables. */
type LoadedShard = Shard3d & { grids?: GridTables };

// The stages' types live in shape-candidates.ts; importers keep this path.
export {
  candidateKey,
  unionCandidates,
  type Candidate,
  type FirstStageMetric,
  type ScoredCandidate,
  type ShapeStages,
} from './shape-candidates.ts';

/** The current request's limits (none outside one) and the lane of a request of that size. */
const runOptions = (queries: number, rows: number): ShapeRunOptions => ({
  ...requestLimits(),
  lane: shapeLane(queries, rows),
});

export function createShapeStages(deps: {
  catalogs: Catalog[];
  pool: SearchPool;
  shapePool: ShapePool;
  /** Conformers up to which a catalog gets grid tables (default GRID_MAX_CONFORMERS; tests lower it). */
  gridMaxConformers?: number;
}): ShapeStages {
  const gridMax = deps.gridMaxConformers ?? GRID_MAX_CONFORMERS;
  const byId = new Map(deps.catalogs.map((c) => [c.manifest.id, c]));
  const loaded = new Map<string, Promise<LoadedShard[]>>();
  const offsets = new Map<string, number[]>();
  const shards3d = (id: string): Promise<LoadedShard[]> => {
    let p = loaded.get(id);
    if (!p) {
      p = (async () => {
        const c = await openCatalog(byId.get(id)!.dir);
        const shards: LoadedShard[] = await Promise.all(c.manifest.shards.map((_, i) => loadShard3d(c, i)));
        if (shards.reduce((n, x) => n + gridConformers(x), 0) <= gridMax)
          // Built once per catalog on the pool's threads (~2 ms per conformer), never this event loop.
          await Promise.all(shards.map(async (x) => (x.grids = await deps.shapePool.gridTables(x))));
        return shards;
      })();
      p.catch(() => loaded.delete(id));
      loaded.set(id, p);
    }
    return p;
  };
  const offsetsOf = (db: string): number[] => {
    let o = offsets.get(db);
    if (!o) {
      o = [0];
      for (const s of byId.get(db)!.manifest.shards) o.push(o[o.length - 1] + s.rows);
      offsets.set(db, o);
    }
    return o;
  };
  const fingerprint = (c: Candidate) =>
    (deps.pool.shard(c.db, c.shard) as ShardData).fingerprints.subarray(
      c.row * FP_BYTES,
      (c.row + 1) * FP_BYTES,
    );

  return {
    shards3d,

    async firstStage(molecules, dbNames, limit, metric = 'shape') {
      let rows = 0;
      const loadedDbs = await Promise.all(dbNames.map(async (db) => ({ db, shards: await shards3d(db) })));
      // The grid first stage when every database has grid tables, so merged shard scores compare.
      const grid = loadedDbs.every((d) => d.shards.every((x) => x.grids));
      // One ESP query: the ESP pre-stage (esp-prescreen.ts) over each shard's charge-grid pool.
      // Several (a centroid): the pose-aware charge grid alone, which scores every row cheaply.
      const prescreen = grid && metric === 'esp' && molecules.length === 1;
      // Grid queries: the shape grid, and with it the charge grid for the pose-aware ESP stage.
      type Query =
        { usr: Float32Array } | { esp: Molecule3d } | { shape: Float32Array; charge?: Float32Array };
      const queries = molecules.map((m): Query => {
        if (!grid) return { usr: describeConformers(m) };
        if (prescreen) return { esp: m };
        const p = prepareShape(m);
        return { shape: gridDescriptors(p), charge: metric === 'esp' ? chargeGridDescriptors(p) : undefined };
      });
      const ro = runOptions(molecules.length, limit);
      const scanOf = (q: Query, s: LoadedShard, k: number) =>
        'usr' in q
          ? deps.shapePool.scanShortlist(q.usr, s.table, k, ro)
          : 'esp' in q
            ? deps.shapePool.scanEspPrescreen(q.esp, s.grids!, s, k, espPoolRows(k), ro)
            : q.charge
              ? deps.shapePool.scanPoseCharge(q.shape, q.charge, s.grids!, k, ro)
              : deps.shapePool.scanGrid(q.shape, s.grids!.shape, k, 'tanimoto', ro);
      // Every shard is scanned on the shape pool's threads, never this event loop; candidates are
      // gathered in shard order so ties rank as in a serial scan.
      const scans: Promise<Candidate[]>[] = [];
      for (const { db, shards } of loadedDbs) {
        for (const s of shards) {
          rows += s.rows;
          const keep = (row: number) => s.confCounts[row] > 0;
          if (queries.length === 1) {
            const scan = scanOf(queries[0], s, Math.min(limit, s.rows));
            scans.push(
              scan.then((sl) =>
                Array.from(sl.rows, (row, i) => ({ db, shard: s.index, row, first: sl.scores[i] })).filter(
                  (c) => keep(c.row),
                ),
              ),
            );
            continue;
          }
          // Several queries: every row's score per query (a full scan returns all rows), then the mean.
          const all = queries.map((q) => scanOf(q, s, s.rows));
          scans.push(
            Promise.all(all).then((lists) => {
              const perQuery = lists.map((sl) => {
                const byRow = new Float64Array(s.rows);
                sl.rows.forEach((row, i) => (byRow[row] = sl.scores[i]));
                return byRow;
              });
              const mean = meanOverQueries(perQuery);
              return Array.from(mean, (first, row) => ({ db, shard: s.index, row, first }))
                .filter((c) => keep(c.row))
                .sort((a, b) => b.first - a.first || a.row - b.row)
                .slice(0, limit);
            }),
          );
        }
      }
      const candidates = (await Promise.all(scans))
        .flat()
        .sort((a, b) => b.first - a.first)
        .slice(0, limit);
      const method = grid
        ? metric === 'esp'
          ? prescreen
            ? 'ESP pre-stage'
            : 'pose-aware charge grid'
          : 'shape grid'
        : 'USRCAT descriptors';
      return { candidates, rows, method };
    },

    async descriptorStage(vector, dbNames, limit) {
      let rows = 0;
      const scans: Promise<Candidate[]>[] = [];
      for (const db of dbNames)
        for (const s of await shards3d(db)) {
          rows += s.rows;
          const scan = deps.shapePool.scanShortlist(
            vector,
            s.table,
            Math.min(limit, s.rows),
            runOptions(1, limit),
          );
          scans.push(
            scan.then((sl) =>
              Array.from(sl.rows, (row, i) => ({ db, shard: s.index, row, first: sl.scores[i] })).filter(
                (c) => s.confCounts[c.row] > 0,
              ),
            ),
          );
        }
      const candidates = (await Promise.all(scans))
        .flat()
        .sort((a, b) => b.first - a.first)
        .slice(0, limit);
      return { candidates, rows };
    },

    async morganStage(fp, dbNames, k) {
      const hits = await deps.pool.knn({ catalogs: dbNames, query: fp, k });
      return hits.map((h) => ({ db: h.catalog, shard: h.shard, row: h.row, first: h.similarity }));
    },

    async exact(queries, fps, candidates) {
      const sets = await Promise.all(
        candidates.map(async (c) => molecule3d((await shards3d(c.db))[c.shard], c.row)),
      );
      const withConf = sets.flatMap((s, i) => (s ? [i] : []));
      const shape = queries.map(() => new Float64Array(candidates.length));
      const esp = queries.map(() => new Float64Array(candidates.length));
      const ro = runOptions(queries.length, withConf.length);
      await Promise.all(
        queries.map(async (q, qi) => {
          const hits = await deps.shapePool.scoreShortlist(
            q,
            withConf.map((i) => sets[i]!),
            { metric: 'shape', k: Math.max(1, withConf.length) },
            ro,
          );
          for (const h of hits) {
            shape[qi][withConf[h.index]] = h.shape;
            esp[qi][withConf[h.index]] = h.esp;
          }
        }),
      );
      const meanShape = meanOverQueries(shape);
      const meanEsp = meanOverQueries(esp);
      const morgan = meanOverQueries(
        fps.map((q) => Float64Array.from(candidates, (c) => tanimoto(q, fingerprint(c)))),
      );
      return candidates.map((c, i) => ({
        ...c,
        shape: sets[i] ? meanShape[i] : null,
        esp: sets[i] ? meanEsp[i] : null,
        morgan: morgan[i],
      }));
    },

    morgan: (fp, c) => tanimoto(fp, fingerprint(c)),
    shard: (c) => deps.pool.shard(c.db, c.shard) as ShardData,

    globalRow: (c) => offsetsOf(c.db)[c.shard] + c.row,

    fromGlobalRow(db, row) {
      const o = offsetsOf(db);
      let shard = 0;
      while (shard + 1 < o.length - 1 && o[shard + 1] <= row) shard++;
      return { db, shard, row: row - o[shard], first: NaN };
    },
  };
}
