/** The catalog build's thread pool (engine/threads): each thread with its own RDKit; one chunk per thread at a time. */
import { createThreadPool } from '../../threads/index.ts';
import type { ChunkResult } from './parse-chunk.ts';
import type { InputRecord } from './input.ts';

export interface ChunkPool {
  parse(chunk: number, records: InputRecord[]): Promise<ChunkResult>;
  close(): Promise<void>;
}

export interface ChunkRequest {
  chunk: number;
  records: InputRecord[];
}

/** Starts `threads` threads; resolves once every thread has loaded RDKit (and, with `admet`, the ADMET models). */
export async function createChunkPool(threads: number, opts?: { admet?: boolean }): Promise<ChunkPool> {
  const pool = createThreadPool<ChunkRequest, ChunkResult>({
    name: 'catalog build',
    script: new URL('./worker.ts', import.meta.url),
    size: Math.max(1, threads),
    workerData: () => ({ admet: Boolean(opts?.admet) }),
  });
  try {
    await pool.start();
  } catch (err) {
    await pool.close();
    throw err;
  }
  return {
    parse: (chunk, records) =>
      pool.run({ chunk, records }).catch((err: Error) => {
        throw new Error(`chunk ${chunk} failed: ${err.message}`, { cause: err });
      }),
    close: () => pool.close(),
  };
}
