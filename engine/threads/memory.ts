/** Memory probes of pool threads, and the registry of open pools that /metrics breaks down by thread. */
import type { Worker } from 'node:worker_threads';
import type { RequestEnvelope } from './protocol.ts';
import type { ThreadMemory, ThreadPool } from './types.ts';

/** A request awaiting its thread's reply. */
export interface Pending {
  resolve(v: unknown): void;
  reject(e: unknown): void;
}

/** Every open pool of this process, so that /metrics can break memory down by thread. */
const openPools = new Set<ThreadPool<unknown, unknown>>();

export const registerPool = (pool: ThreadPool<unknown, unknown>) => void openPools.add(pool);
export const unregisterPool = (pool: ThreadPool<unknown, unknown>) => void openPools.delete(pool);

/** The memory of every thread of every open pool in this process (threads not yet ready are left out). */
export async function threadPoolsMemory(): Promise<ThreadMemory[]> {
  return (await Promise.all([...openPools].map((p) => p.memory()))).flat();
}

/** Asks a thread for its memory under request `id`; undefined when it does not answer within 5 s. */
export function probeMemory(
  t: { index: number; worker: Worker; calls: Map<number, Pending> },
  id: number,
  pool: string,
): Promise<ThreadMemory | undefined> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => (t.calls.delete(id), resolve(undefined)), 5000);
    const done = (v: unknown) => (clearTimeout(timer), resolve(v as ThreadMemory | undefined));
    t.calls.set(id, {
      resolve: (m) => done({ pool, slot: t.index, ...(m as object) }),
      reject: () => done(undefined),
    });
    t.worker.postMessage({ id, body: null, probe: 'memory' } satisfies RequestEnvelope<null>);
  });
}
