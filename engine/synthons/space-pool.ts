/**
 * Synthon-space searches on engine threads (never the caller's event loop): each thread opens the
 * spaces once (they are small next to their products: synthons and fingerprints only).
 */
import { createThreadPool } from '../threads/index.ts';
import type { SimilarityResult } from './similarity.ts';
import type { SampleResult } from './sample.ts';
import type { SubstructureResult } from './substructure.ts';

export type SpaceRequest =
  | { op: 'similarity'; space: string; fp: Uint8Array; k: number; timeoutMs?: number }
  | { op: 'sample'; space: string; n: number; seed: number }
  | { op: 'substructure'; space: string; query: string; maxHits: number; timeoutMs?: number };

export type SpaceReply =
  | { op: 'similarity'; result: SimilarityResult & { threshold: number } }
  | { op: 'sample'; result: SampleResult }
  | { op: 'substructure'; result: SubstructureResult };

export interface SpacePool {
  similarity(
    space: string,
    fp: Uint8Array,
    k: number,
    timeoutMs?: number,
  ): Promise<SimilarityResult & { threshold: number }>;
  sample(space: string, n: number, seed: number): Promise<SampleResult>;
  substructure(
    space: string,
    query: string,
    maxHits: number,
    timeoutMs?: number,
  ): Promise<SubstructureResult>;
  close(): Promise<void>;
}

/** A pool of `threads` threads over the spaces in `dirs` (built space directories). */
export function createSpacePool(opts: { dirs: string[]; threads?: number }): SpacePool {
  const pool = createThreadPool<SpaceRequest, SpaceReply>({
    name: 'synthon space',
    script: new URL('./space-thread.ts', import.meta.url),
    size: opts.threads ?? 1,
    unrefIdle: true,
    workerData: () => ({ dirs: opts.dirs }),
  });
  const run = async <T extends SpaceReply['op']>(req: SpaceRequest & { op: T }) =>
    (await pool.run(() => req)) as Extract<SpaceReply, { op: T }>;
  return {
    similarity: async (space, fp, k, timeoutMs) =>
      (await run({ op: 'similarity', space, fp, k, timeoutMs })).result,
    sample: async (space, n, seed) => (await run({ op: 'sample', space, n, seed })).result,
    substructure: async (space, query, maxHits, timeoutMs) =>
      (await run({ op: 'substructure', space, query, maxHits, timeoutMs })).result,
    close: () => pool.close(),
  };
}
