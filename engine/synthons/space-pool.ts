/**
 * Synthon-space searches on engine threads (never the caller's event loop): each thread opens the
 * spaces once (they are small next to their products: synthons and fingerprints only).
 */
import { createThreadPool } from '../threads/index.ts';
import type { TopKResult } from './similarity-topk.ts';
import type { SampleResult } from './sample.ts';
import type { RerankOptions, RerankResult } from './rerank.ts';
import type { SubstructureOptions, SubstructureResult } from './substructure.ts';

export type SpaceRequest = (
  | { op: 'similarity'; space: string; fp: Uint8Array; k: number; timeoutMs?: number }
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
  similarity(space: string, fp: Uint8Array, k: number, timeoutMs?: number): Promise<TopKResult>;
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
  close(): Promise<void>;
}

/** A pool of `threads` threads over the spaces in `dirs` (built space directories). */
export function createSpacePool(opts: { dirs: string[]; threads?: number }): SpacePool {
  const dirs = [...opts.dirs];
  const added = new Map<string, string>();
  const pool = createThreadPool<SpaceRequest, SpaceReply>({
    name: 'synthon space',
    script: new URL('./space-thread.ts', import.meta.url),
    size: opts.threads ?? 1,
    unrefIdle: true,
    workerData: () => ({ dirs }),
  });
  const run = async <T extends SpaceReply['op']>(req: SpaceRequest & { op: T }) =>
    (await pool.run(() => ({ ...req, dir: added.get(req.space) }))) as Extract<SpaceReply, { op: T }>;
  return {
    similarity: async (space, fp, k, timeoutMs) =>
      (await run({ op: 'similarity', space, fp, k, timeoutMs })).result,
    sample: async (space, n, seed) => (await run({ op: 'sample', space, n, seed })).result,
    rerank: async (space, fp, opts) => (await run({ op: 'rerank', space, fp, opts })).result,
    substructure: async (space, query, opts) =>
      (await run({ op: 'substructure', space, query, opts })).result,
    async add(space, dir) {
      added.set(space, dir);
      dirs.push(dir);
      await run({ op: 'open', space });
    },
    close: () => pool.close(),
  };
}
