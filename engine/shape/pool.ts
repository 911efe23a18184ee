/**
 * scoreShortlist and the first-stage scanShortlist on the engine's thread pool (engine/threads), so
 * 3D work never runs on the caller's event loop: a shortlist is split into contiguous chunks, one
 * per thread, each scored against the query there; the chunks' results merge into the same top k as
 * a serial call. A scan is one request per descriptor table (a shard); tables over shared memory
 * (loadShard3d) reach the thread without a copy.
 *
 * No 3D request can stall another (issue 15's rules, as for the similarity, analysis, selection and
 * ADMET pools): calls carry their request's whole-life deadline and the client's abort signal
 * (ShapeRunOptions), and wait in one of two lanes, small requests first; big shortlists are scored
 * in bounded tasks, so a small request overtakes a big one within one task.
 */
import { DomainError } from '../../platform/errors.ts';
import { createThreadPool } from '../threads/index.ts';
import type { ConformerSet } from './conformers.ts';
import type { DescriptorTable, Shortlist } from './scan.ts';
import type { GridTables, ShardConformers } from './grid-tables.ts';
import { mergePrescreenParts, type PrescreenPart } from './esp-prescreen.ts';
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

/** The pose-aware ESP first stage over a shard's grid tables (engine/shape/pose-grid.ts). */
export interface ShapePoseScanRequest {
  kind: 'pose';
  shape: Float32Array;
  charge: Float32Array;
  tables: GridTables;
  k: number;
}

/** The ESP pre-stage over a shard (engine/shape/esp-prescreen.ts). */
export interface ShapeEspPrescreenRequest {
  kind: 'esp';
  query: ConformerSet;
  tables: GridTables;
  shard: ShardConformers;
  pool: number;
  part: number;
  parts: number;
}

/** Builds a shard's grid tables (engine/shape/grid-tables.ts). */
export interface ShapeGridRequest {
  kind: 'grids';
  shard: ShardConformers;
}

type Request =
  ShapeScoreRequest | ShapeScanRequest | ShapePoseScanRequest | ShapeEspPrescreenRequest | ShapeGridRequest;
type Response = ScoredCandidate[] | Shortlist | PrescreenPart | GridTables;

/**
 * Which queue a 3D call waits in. `interactive` (served first): a request's calls when it is small
 * (`shapeLane`); `bulk`: big requests (`very_accurate`, many queries, large shortlists), jobs and
 * grid-table builds. Bulk work is cut into tasks of at most `chunkPairs` conformer pairs, so an
 * interactive call waits for at most one such task per thread, never for a whole big request.
 */
export type ShapeLane = 'interactive' | 'bulk';

/** When a call must give up and where it waits (the API passes its request's limits). */
export interface ShapeRunOptions {
  /** Default: by the call's own size (scoreShortlist: shapeLane(1, candidates); scans: interactive). */
  lane?: ShapeLane;
  /** Date.now() ms by which the call must be answered, queue included: 503 `overloaded` after. */
  deadline?: number;
  /** Aborting (the client went away) withdraws the call's queued tasks. */
  signal?: AbortSignal;
}

/**
 * Query × candidate rows beyond which a request's 3D work goes to the bulk lane: `fast` (100 rows)
 * with up to 3 queries stays interactive; `accurate` (1,000 rows), `very_accurate` (every row) and
 * larger centroids do not.
 */
export const INTERACTIVE_ROWS = 300;

/** The lane of a request scoring `rows` candidates (or shortlisting that many) against `queries` queries. */
export const shapeLane = (queries: number, rows: number): ShapeLane =>
  queries * rows > INTERACTIVE_ROWS ? 'bulk' : 'interactive';

export interface ShapePool {
  /** scanShortlist (engine/shape/scan.ts) on a pool thread: same rows and scores. */
  scanShortlist(
    query: Float32Array,
    table: DescriptorTable,
    k: number,
    ro?: ShapeRunOptions,
  ): Promise<Shortlist>;
  /** gridScan (engine/shape/gaussian-grid.ts) of a grid table on a pool thread. */
  scanGrid(
    query: Float32Array,
    table: DescriptorTable,
    k: number,
    metric: 'tanimoto' | 'cosine',
    ro?: ShapeRunOptions,
  ): Promise<Shortlist>;
  /** poseChargeScan (engine/shape/pose-grid.ts) of a shard's grid tables on a pool thread. */
  scanPoseCharge(
    shape: Float32Array,
    charge: Float32Array,
    tables: GridTables,
    k: number,
    ro?: ShapeRunOptions,
  ): Promise<Shortlist>;
  /** espPrescreenScan (engine/shape/esp-prescreen.ts) of a shard on a pool thread. */
  scanEspPrescreen(
    query: ConformerSet,
    tables: GridTables,
    shard: ShardConformers,
    k: number,
    pool: number,
    ro?: ShapeRunOptions,
  ): Promise<Shortlist>;
  /** buildGridTables on a pool thread (tables in shared memory); bulk lane, no deadline. */
  gridTables(shard: ShardConformers): Promise<GridTables>;
  /** The serial scoreShortlist's top k, scored in tasks of at most `chunkPairs` conformer pairs. */
  scoreShortlist(
    query: ConformerSet,
    candidates: readonly ConformerSet[],
    opts: ScoreShortlistOptions,
    ro?: ShapeRunOptions,
  ): Promise<ScoredCandidate[]>;
  /** Threads and queued tasks (tests, /metrics). */
  stats(): { busy: number; queued: number; threads: number };
  close(): Promise<void>;
}

/** Below this many candidates per thread a shortlist stays on one thread. */
const MIN_CHUNK = 8;
/**
 * Conformer pairs per task at most (~1.2 ms a pair on one loaded core: about 1 s), the longest an
 * interactive call waits for a thread busy with bulk work.
 */
export const CHUNK_PAIRS = 800;

/** Contiguous [from, to) ranges of candidates, each at most `maxPairs` conformer pairs (≥ 1 candidate). */
export function chunkCandidates(
  queryConfs: number,
  candidates: readonly ConformerSet[],
  pieces: number,
  maxPairs: number,
): [number, number][] {
  const pairs = candidates.map((c) => queryConfs * c.confCount);
  const total = pairs.reduce((a, b) => a + b, 0);
  const per = Math.min(maxPairs, Math.ceil(total / Math.max(1, pieces)));
  const out: [number, number][] = [];
  let from = 0;
  let acc = 0;
  pairs.forEach((p, i) => {
    if (i > from && acc + p > per) {
      out.push([from, i]);
      from = i;
      acc = 0;
    }
    acc += p;
  });
  if (from < candidates.length) out.push([from, candidates.length]);
  return out;
}

/** Only the sidecar columns the kernels read, so nothing else is cloned to the thread. */
const shardConformers = (s: ShardConformers): ShardConformers => ({
  rows: s.rows,
  confCounts: s.confCounts,
  atomCounts: s.atomCounts,
  atomOffsets: s.atomOffsets,
  coordOffsets: s.coordOffsets,
  elements: s.elements,
  charges: s.charges,
  coords: s.coords,
});

export function createShapePool(opts: { threads?: number; chunkPairs?: number } = {}): ShapePool {
  const size = Math.max(1, opts.threads ?? 2);
  const chunkPairs = opts.chunkPairs ?? CHUNK_PAIRS;
  const threads = createThreadPool<Request, Response>({
    name: 'shape',
    script: new URL('./pool-worker.ts', import.meta.url),
    size,
    unrefIdle: true,
    lanes: ['interactive', 'bulk'],
    // The threads hold nothing but pure kernels: stopping an overdue task by terminating its
    // thread loses nothing, and frees the core for requests someone still waits for.
    terminateOverdue: true,
    errors: {
      timedOut: (queued) =>
        new DomainError(
          'overloaded',
          queued
            ? 'the 3D threads are busy: the request waited past its deadline; retry shortly'
            : 'the 3D request ran past its deadline and was stopped; retry with a faster search_quality',
          { retryAfterSeconds: 1 },
        ),
    },
  });
  const runOpts = (ro: ShapeRunOptions | undefined, lane: ShapeLane) => ({
    lane: ro?.lane ?? lane,
    deadline: ro?.deadline,
    signal: ro?.signal,
  });
  return {
    scanShortlist: (query, table, k, ro) =>
      threads.run({ kind: 'scan', query, table, k }, runOpts(ro, 'interactive')) as Promise<Shortlist>,
    scanGrid: (query, table, k, grid, ro) =>
      threads.run({ kind: 'scan', query, table, k, grid }, runOpts(ro, 'interactive')) as Promise<Shortlist>,
    scanPoseCharge: (shape, charge, tables, k, ro) =>
      threads.run(
        { kind: 'pose', shape, charge, tables, k },
        runOpts(ro, 'interactive'),
      ) as Promise<Shortlist>,
    // One part per thread (the rescoring dominates); merged as the serial espPrescreenScan ranks.
    async scanEspPrescreen(query, tables, shard, k, pool, ro) {
      const cols = shardConformers(shard);
      const parts = await Promise.all(
        Array.from(
          { length: size },
          (_, part) =>
            threads.run(
              { kind: 'esp', query, tables, shard: cols, pool: Math.max(k, pool), part, parts: size },
              runOpts(ro, 'interactive'),
            ) as Promise<PrescreenPart>,
        ),
      );
      return mergePrescreenParts(parts, k);
    },
    // Shared by every request on the catalog (and cached): no one request's limits apply.
    gridTables: (shard) => threads.run({ kind: 'grids', shard }, { lane: 'bulk' }) as Promise<GridTables>,
    async scoreShortlist(query, candidates, o, ro) {
      checkScoreOptions(o); // bad options fail here, before any thread work
      if (candidates.length === 0) return [];
      const pieces = Math.min(size, Math.ceil(candidates.length / MIN_CHUNK));
      const chunks = chunkCandidates(query.confCount, candidates, pieces, chunkPairs);
      // One failed or overdue task withdraws its siblings still queued: nobody waits for them.
      const failed = new AbortController();
      const signal = ro?.signal ? AbortSignal.any([ro.signal, failed.signal]) : failed.signal;
      const run = runOpts(ro, shapeLane(1, candidates.length));
      const parts = await Promise.all(
        chunks.map(([from, to]) =>
          (
            threads.run(
              { query, candidates: candidates.slice(from, to), offset: from, opts: o },
              { ...run, signal },
            ) as Promise<ScoredCandidate[]>
          ).catch((err: unknown) => {
            failed.abort(err);
            throw err;
          }),
        ),
      );
      const key = o.metric;
      return parts
        .flat()
        .sort((x, y) => y[key] - x[key] || x.index - y.index)
        .slice(0, o.k);
    },
    stats: () => {
      const s = threads.stats();
      return { busy: s.busy, queued: s.queued, threads: s.threads };
    },
    close: () => threads.close(),
  };
}
