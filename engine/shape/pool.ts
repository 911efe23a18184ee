/**
 * scoreShortlist and the first-stage scanShortlist on the engine's thread pool (engine/threads), so
 * 3D work never runs on the caller's event loop: a shortlist is split into contiguous chunks, one
 * per thread, each scored against the query there; the chunks' results merge into the same top k as
 * a serial call. A scan is one request per descriptor table (a shard); tables over shared memory
 * (loadShard3d) reach the thread without a copy.
 */
import { createThreadPool } from '../threads/index.ts';
import type { ConformerSet } from './conformers.ts';
import type { DescriptorTable, Shortlist } from './scan.ts';
import type { GridTables, ShardConformers } from './grid-tables.ts';
import { checkScoreOptions, type ScoreShortlistOptions, type ScoredCandidate } from './score.ts';

export interface ShapeScoreRequest {
  query: ConformerSet;
  candidates: ConformerSet[];
  /** Index of candidates[0] in the caller's shortlist. */
  offset: number;
  opts: ScoreShortlistOptions;
}

/** A first-stage scan of one descriptor table (engine/shape/scan.ts, or gridScan with `grid`). */
export interface ShapeScanRequest {
  kind: 'scan';
  query: Float32Array;
  table: DescriptorTable;
  k: number;
  grid?: 'tanimoto' | 'cosine';
}

/** Builds a shard's grid tables (engine/shape/grid-tables.ts). */
export interface ShapeGridRequest {
  kind: 'grids';
  shard: ShardConformers;
}

type Request = ShapeScoreRequest | ShapeScanRequest | ShapeGridRequest;
type Response = ScoredCandidate[] | Shortlist | GridTables;

export interface ShapePool {
  /** scanShortlist (engine/shape/scan.ts) on a pool thread: same rows and scores. */
  scanShortlist(query: Float32Array, table: DescriptorTable, k: number): Promise<Shortlist>;
  /** gridScan (engine/shape/gaussian-grid.ts) of a grid table on a pool thread. */
  scanGrid(
    query: Float32Array,
    table: DescriptorTable,
    k: number,
    metric: 'tanimoto' | 'cosine',
  ): Promise<Shortlist>;
  /** buildGridTables on a pool thread (tables in shared memory). */
  gridTables(shard: ShardConformers): Promise<GridTables>;
  scoreShortlist(
    query: ConformerSet,
    candidates: readonly ConformerSet[],
    opts: ScoreShortlistOptions,
  ): Promise<ScoredCandidate[]>;
  close(): Promise<void>;
}

/** Below this many candidates per thread a shortlist stays on one thread. */
const MIN_CHUNK = 8;

export function createShapePool(opts: { threads?: number } = {}): ShapePool {
  const size = Math.max(1, opts.threads ?? 2);
  const threads = createThreadPool<Request, Response>({
    name: 'shape',
    script: new URL('./pool-worker.ts', import.meta.url),
    size,
    unrefIdle: true,
  });
  return {
    scanShortlist: (query, table, k) => threads.run({ kind: 'scan', query, table, k }) as Promise<Shortlist>,
    scanGrid: (query, table, k, grid) =>
      threads.run({ kind: 'scan', query, table, k, grid }) as Promise<Shortlist>,
    gridTables: (shard) => threads.run({ kind: 'grids', shard }) as Promise<GridTables>,
    async scoreShortlist(query, candidates, o) {
      checkScoreOptions(o); // bad options fail here, before any thread work
      if (candidates.length === 0) return [];
      const chunks = Math.min(size, Math.ceil(candidates.length / MIN_CHUNK));
      const per = Math.ceil(candidates.length / chunks);
      const parts = (await Promise.all(
        Array.from({ length: chunks }, (_, c) =>
          threads.run({
            query,
            candidates: candidates.slice(c * per, (c + 1) * per),
            offset: c * per,
            opts: o,
          }),
        ),
      )) as ScoredCandidate[][];
      const key = o.metric;
      return parts
        .flat()
        .sort((x, y) => y[key] - x[key] || x.index - y.index)
        .slice(0, o.k);
    },
    close: () => threads.close(),
  };
}
