/** A small pool of build worker threads, each with its own RDKit; one chunk per worker at a time. */
import { Worker } from 'node:worker_threads';
import type { ChunkResult } from './parse-chunk.ts';
import type { InputRecord } from './input.ts';

export interface ChunkPool {
  parse(chunk: number, records: InputRecord[]): Promise<ChunkResult>;
  close(): Promise<void>;
}

interface Task {
  chunk: number;
  records: InputRecord[];
  resolve: (r: ChunkResult) => void;
  reject: (e: Error) => void;
}

/** Starts `threads` workers; resolves once every worker has loaded RDKit (and, with `admet`, the ADMET models). */
export async function createChunkPool(threads: number, opts?: { admet?: boolean }): Promise<ChunkPool> {
  const queue: Task[] = [];
  const idle: Worker[] = [];
  const busy = new Map<Worker, Task>();
  let failed: Error | undefined;
  const workers = Array.from(
    { length: Math.max(1, threads) },
    () =>
      new Worker(new URL('./worker.ts', import.meta.url), { workerData: { admet: Boolean(opts?.admet) } }),
  );
  const pump = (): void => {
    while (idle.length && queue.length) {
      const w = idle.pop()!;
      const t = queue.shift()!;
      busy.set(w, t);
      w.postMessage({ chunk: t.chunk, records: t.records });
    }
  };
  await Promise.all(
    workers.map(
      (w) =>
        new Promise<void>((resolve, reject) => {
          w.on('message', (msg: { ready?: true; ok?: ChunkResult; error?: { message: string } }) => {
            if (msg.ready) {
              idle.push(w);
              resolve();
              pump();
              return;
            }
            const t = busy.get(w)!;
            busy.delete(w);
            idle.push(w);
            if (msg.ok) t.resolve(msg.ok);
            else t.reject(new Error(`chunk ${t.chunk} failed: ${msg.error?.message}`));
            pump();
          });
          w.on('error', (err) => {
            failed = err;
            reject(err);
            busy.get(w)?.reject(err);
            for (const t of queue.splice(0)) t.reject(err);
          });
        }),
    ),
  );
  return {
    parse(chunk, records) {
      if (failed) return Promise.reject(failed);
      return new Promise((resolve, reject) => {
        queue.push({ chunk, records, resolve, reject });
        pump();
      });
    },
    async close() {
      await Promise.all(workers.map((w) => w.terminate()));
    },
  };
}
