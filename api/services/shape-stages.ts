/**
 * The stages every 3D search path shares (docs/chem3d.md, "The 3D search path"): the first-stage
 * shortlist over the stored descriptors, Morgan candidates from the search pool, and the exact
 * stage that gives every candidate its shape, ESP and Morgan scores. /molsearch (one query, one or
 * several types, consensus), /batch_search centroid (several queries, mean scores) and
 * /api/v2/search_cheese (proposal + rerank) are built from these.
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
  gridConformers,
  gridDescriptors,
  prepareShape,
  type GridTables,
  type ShapePool,
} from '../../engine/shape/index.ts';

/**
 * Catalogs with at most this many conformers get grid tables for the first stage (2 × 540 bytes
 * per conformer: ~108 MB at the limit); larger ones are screened by the sidecars' USRCAT-style
 * descriptors, which recall the exact ranking far less (bench/shape/README.md).
 */
export const GRID_MAX_CONFORMERS = 100_000;

/** A loaded shard: its sidecar and, for catalogs within GRID_MAX_CONFORMERS, its grid tables. */
type LoadedShard = Shard3d & { grids?: GridTables };

/** Which first-stage score ranks: the shape grid (shape, consensus) or the charge grid (ESP). */
export type FirstStageMetric = 'shape' | 'esp';

/** A catalog row on the way through the stages. */
export interface Candidate {
  db: string;
  shard: number;
  row: number;
  /** Score of the stage that proposed the row: descriptor similarity, or f32 Morgan Tanimoto. */
  first: number;
}

/** A candidate after the exact stage (scores averaged over the queries when there are several). */
export interface ScoredCandidate extends Candidate {
  /** Gaussian shape Tanimoto at the best alignment; null when the row has no conformers. */
  shape: number | null;
  /** espsim's ESP Carbo at that alignment; null when the row has no conformers. */
  esp: number | null;
  /** Exact (double) Morgan r2/2048 Tanimoto. */
  morgan: number;
}

export interface ShapeStages {
  /** The rows of each shard of a 3D-ready catalog (loaded once, kept). */
  shards3d(db: string): Promise<Shard3d[]>;
  /**
   * The `limit` best rows by first-stage score, over every shard of `dbNames`: the shape grid (or
   * the charge grid for `esp`) when every shard has grid tables, else the USRCAT-style
   * descriptors; with several queries a row scores the mean of its per-query scores. Rows without
   * conformers are skipped.
   */
  firstStage(
    queries: Molecule3d[],
    dbNames: string[],
    limit: number,
    metric?: FirstStageMetric,
  ): Promise<{ candidates: Candidate[]; rows: number; method: string }>;
  /**
   * The first stage alone for a given USRCAT-style descriptor vector (60 floats per conformer, as
   * the sidecars store): the `limit` best rows of `dbNames` by descriptor similarity.
   */
  descriptorStage(
    vector: Float32Array,
    dbNames: string[],
    limit: number,
  ): Promise<{ candidates: Candidate[]; rows: number }>;
  /** The k best rows by Morgan Tanimoto (search pool, f32 scores and order), as candidates. */
  morganStage(fp: Uint8Array, dbNames: string[], k: number): Promise<Candidate[]>;
  /**
   * Exact scores of every candidate against every query (means over queries); candidates keep
   * their order. A candidate without conformers gets null shape and ESP.
   */
  exact(queries: Molecule3d[], fps: Uint8Array[], candidates: Candidate[]): Promise<ScoredCandidate[]>;
  /** Exact (double) Morgan Tanimoto of a candidate to a query fingerprint. */
  morgan(fp: Uint8Array, c: Candidate): number;
  /** The catalog shard holding a candidate (to read its columns). */
  shard(c: Candidate): ShardData;
  /** Row index across the catalog's shards in manifest order (the v2 library's row numbers). */
  globalRow(c: Candidate): number;
  /** The candidate at a row index across the catalog's shards (globalRow's inverse). */
  fromGlobalRow(db: string, row: number): Candidate;
}

export const candidateKey = (c: Candidate) => `${c.db}\u0000${c.shard}\u0000${c.row}`;

/** Candidates of `b` not already in `a`, appended (a's order first). */
export function unionCandidates(a: Candidate[], b: Candidate[]): Candidate[] {
  const seen = new Set(a.map(candidateKey));
  return [...a, ...b.filter((c) => !seen.has(candidateKey(c)))];
}

export function createShapeStages(deps: {
  catalogs: Catalog[];
  pool: SearchPool;
  shapePool: ShapePool;
}): ShapeStages {
  const byId = new Map(deps.catalogs.map((c) => [c.manifest.id, c]));
  const loaded = new Map<string, Promise<LoadedShard[]>>();
  const offsets = new Map<string, number[]>();
  const shards3d = (id: string): Promise<LoadedShard[]> => {
    let p = loaded.get(id);
    if (!p) {
      p = (async () => {
        const c = await openCatalog(byId.get(id)!.dir);
        const shards: LoadedShard[] = await Promise.all(c.manifest.shards.map((_, i) => loadShard3d(c, i)));
        if (shards.reduce((n, x) => n + gridConformers(x), 0) <= GRID_MAX_CONFORMERS)
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
      const queries = molecules.map((m) =>
        !grid
          ? describeConformers(m)
          : metric === 'esp'
            ? chargeGridDescriptors(prepareShape(m))
            : gridDescriptors(prepareShape(m)),
      );
      const scanOf = (q: Float32Array, s: LoadedShard, k: number) =>
        grid && s.grids
          ? metric === 'esp'
            ? deps.shapePool.scanGrid(q, s.grids.charge, k, 'cosine')
            : deps.shapePool.scanGrid(q, s.grids.shape, k, 'tanimoto')
          : deps.shapePool.scanShortlist(q, s.table, k);
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
      const method = grid ? (metric === 'esp' ? 'charge grid' : 'shape grid') : 'USRCAT descriptors';
      return { candidates, rows, method };
    },

    async descriptorStage(vector, dbNames, limit) {
      let rows = 0;
      const scans: Promise<Candidate[]>[] = [];
      for (const db of dbNames)
        for (const s of await shards3d(db)) {
          rows += s.rows;
          const scan = deps.shapePool.scanShortlist(vector, s.table, Math.min(limit, s.rows));
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
      await Promise.all(
        queries.map(async (q, qi) => {
          const hits = await deps.shapePool.scoreShortlist(
            q,
            withConf.map((i) => sets[i]!),
            { metric: 'shape', k: Math.max(1, withConf.length) },
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
