/**
 * Synthon-space searches on engine threads (never the caller's event loop): each thread opens the
 * spaces once (they are small next to their products: synthons and fingerprints only).
 */
import { createThreadPool } from '../threads/index.ts';
import type { SimilarityResult } from './similarity.ts';
import type { SampleResult } from './sample.ts';
import type { SubstructureResult } from './substructure.ts';

export type SpaceRequest = (
  | { op: 'similarity'; space: string; fp: Uint8Array; k: number; timeoutMs?: number }
  | { op: 'sample'; space: string; n: number; seed: number }
  | { op: 'substructure'; space: string; query: string; maxHits: number; timeoutMs?: number }
  | { op: 'open'; space: string }
) & {
  /** Directory of a space added after the threads started (opened on first use). */
  dir?: string;
};

export type SpaceReply =
  | { op: 'similarity'; result: SimilarityResult & { threshold: number } }
  | { op: 'sample'; result: SampleResult }
  | { op: 'substructure'; result: SubstructureResult }
  | { op: 'open'; result: { synthons: number } };

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
    substructure: async (space, query, maxHits, timeoutMs) =>
      (await run({ op: 'substructure', space, query, maxHits, timeoutMs })).result,
    async add(space, dir) {
      added.set(space, dir);
      dirs.push(dir);
      await run({ op: 'open', space });
    },
    close: () => pool.close(),
  };
}
