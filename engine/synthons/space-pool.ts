/**
 * Synthon-space searches on engine threads (never the caller's event loop): each thread opens the
 * spaces once (they are small next to their products: synthons and fingerprints only).
 *
 * Two lanes, so a search of the 10^9 space never holds up the others: with one thread, a sample of
 * a 12-product space waited 18 s behind a whole-space similarity search, and a substructure search
 * with `timeout_seconds` 5 spent its deadline in the queue (user trial, 2026-11-25). Similarity,
 * reranking and substructure searches of a space with more than `largeProducts` products take the
 * `long` lane, which runs on all threads but one; everything else (small spaces, samples) takes
 * the `quick` lane, served first, so it always finds a thread within one quick request. The cost:
 * every thread holds every space (the 10^9 space: ~0.8 GB a thread once prepared).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createThreadPool } from '../threads/index.ts';
import type { TopKResult } from './similarity-topk.ts';
import type { SampleResult } from './sample.ts';
import type { RerankOptions, RerankResult } from './rerank.ts';
import type { SubstructureOptions, SubstructureResult } from './substructure.ts';

export type SpaceRequest = (
  | { op: 'similarity'; space: string; fp: Uint8Array; k: number; timeoutMs?: number; distinct?: boolean }
  | { op: 'sample'; space: string; n: number; seed: number }
  | { op: 'rerank'; space: string; fp: Uint8Array; opts: RerankOptions }
  | { op: 'substructure'; space: string; query: string; opts: SubstructureOptions }
  | { op: 'open'; space: string }
) & {
  /** Directory of a space added after the threads started (opened on first use). */
  dir?: string;
};

export type SpaceReply =
  | { op: 'similarity'; result: TopKResult }
  | { op: 'sample'; result: SampleResult }
  | { op: 'rerank'; result: RerankResult }
  | { op: 'substructure'; result: SubstructureResult }
  | { op: 'open'; result: { synthons: number } };

export interface SpacePool {
  /**
   * The k best tuples (`distinct`: the k best distinct products, similarity-distinct.ts), within
   * `timeoutMs`.
   */
  similarity(
    space: string,
    fp: Uint8Array,
    k: number,
    timeoutMs?: number,
    opts?: { distinct?: boolean },
  ): Promise<TopKResult>;
  sample(space: string, n: number, seed: number): Promise<SampleResult>;
  /** Morgan reranking (rerank.ts): exact shortlist, prefilter, duplicates counted. */
  rerank(space: string, fp: Uint8Array, opts: RerankOptions): Promise<RerankResult>;
  /** Substructure or superstructure search (substructure.ts); the deadline is Date.now() ms. */
  substructure(space: string, query: string, opts: SubstructureOptions): Promise<SubstructureResult>;
  /**
   * Adds a space built while the service runs (bundled.ts buildInBackground): the threads open it
   * now (it is read once, then searched from memory) and threads started later open it at start.
   */
  add(space: string, dir: string): Promise<void>;
  /**
   * Starts every thread now (the service does, at start): a thread started by the first request
   * that needs it first opens every space, which cost a user's 12-product sample 8 s on a loaded
   * machine while the other thread searched the 10^9 space.
   */
  start(): Promise<void>;
  close(): Promise<void>;
}

/** Spaces above this many products are searched in the `long` lane. */
export const LARGE_SPACE_PRODUCTS = 10_000_000;

/** A built space's id and product count, from its manifest (undefined when it cannot be read). */
function manifestOf(dir: string): { id: string; products: number } | undefined {
  try {
    const m = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as {
      id: string;
      counts: { products: number };
    };
    return { id: m.id, products: m.counts.products };
  } catch {
    return undefined;
  }
}

/**
 * A pool of `threads` threads (default 2, at least 2) over the spaces in `dirs` (built space
 * directories); `largeProducts` sets the long lane's bar (tests lower it).
 */
export function createSpacePool(opts: {
  dirs: string[];
  threads?: number;
  largeProducts?: number;
}): SpacePool {
  const dirs = [...opts.dirs];
  const added = new Map<string, string>();
  const bar = opts.largeProducts ?? LARGE_SPACE_PRODUCTS;
  const large = new Set<string>();
  const note = (dir: string): void => {
    const m = manifestOf(dir);
    if (m && m.products > bar) large.add(m.id);
  };
  dirs.forEach(note);
  const size = Math.max(2, opts.threads ?? 2);
  const pool = createThreadPool<SpaceRequest, SpaceReply>({
    name: 'synthon space',
    script: new URL('./space-thread.ts', import.meta.url),
    size,
    lanes: ['quick', 'long'],
    laneLimits: { long: size - 1 },
    unrefIdle: true,
    workerData: () => ({ dirs }),
  });
  const run = async <T extends SpaceReply['op']>(req: SpaceRequest & { op: T }) => {
    const slow = req.op === 'similarity' || req.op === 'rerank' || req.op === 'substructure';
    const lane = slow && large.has(req.space) ? 'long' : 'quick';
    const reply = await pool.run(() => ({ ...req, dir: added.get(req.space) }), { lane });
    return reply as Extract<SpaceReply, { op: T }>;
  };
  return {
    similarity: async (space, fp, k, timeoutMs, opts) =>
      (await run({ op: 'similarity', space, fp, k, timeoutMs, distinct: opts?.distinct })).result,
    sample: async (space, n, seed) => (await run({ op: 'sample', space, n, seed })).result,
    rerank: async (space, fp, opts) => (await run({ op: 'rerank', space, fp, opts })).result,
    substructure: async (space, query, opts) =>
      (await run({ op: 'substructure', space, query, opts })).result,
    async add(space, dir) {
      added.set(space, dir);
      dirs.push(dir);
      note(dir);
      await run({ op: 'open', space });
    },
    start: async () => void (await pool.start()),
    close: () => pool.close(),
  };
}
