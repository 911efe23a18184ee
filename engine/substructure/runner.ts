/**
 * Runs substructure scans on a dedicated worker thread (never the caller's event loop), one scan
 * at a time in arrival order. Library SMILES are sent to the thread once per library key.
 */
import { Worker } from 'node:worker_threads';
import type { SubstructureScanResult } from './scan.ts';

export interface SubstructureRequest {
  id: number;
  library: string;
  smiles?: string[];
  format: 'smarts' | 'smiles';
  query: string;
  limit: number;
  timeoutMs: number;
}
export type SubstructureReply =
  | { id: number; result: SubstructureScanResult }
  | { id: number; needLibrary: true }
  | { id: number; invalidQuery: true }
  | { id: number; error: string };

export interface SubstructureRunner {
  /**
   * Scans library `key` (rows given by `smiles()`, called only the first time a key is seen) for
   * `query`; resolves `{ invalidQuery: true }` when RDKit cannot parse it. The timeout counts from
   * when the scan starts on the thread.
   */
  scan(
    key: string,
    smiles: () => string[],
    req: { format: 'smarts' | 'smiles'; query: string; limit: number; timeoutMs: number },
  ): Promise<SubstructureScanResult | { invalidQuery: true }>;
  close(): Promise<void>;
}

export function createSubstructureRunner(): SubstructureRunner {
  let worker: Worker | undefined;
  const pending = new Map<number, (r: SubstructureReply) => void>();
  const sent = new Set<string>();
  let nextId = 1;
  const start = () => {
    if (worker) return worker;
    const w = new Worker(new URL('./worker.ts', import.meta.url));
    w.unref();
    w.on('message', (r: SubstructureReply) => {
      pending.get(r.id)?.(r);
      pending.delete(r.id);
    });
    w.on('error', (err) => {
      for (const [id, resolve] of pending) resolve({ id, error: err.message });
      pending.clear();
      sent.clear();
      worker = undefined;
    });
    worker = w;
    return w;
  };
  const call = (msg: SubstructureRequest) =>
    new Promise<SubstructureReply>((resolve) => {
      pending.set(msg.id, resolve);
      start().postMessage(msg);
    });
  return {
    async scan(key, smiles, req) {
      const first = !sent.has(key);
      sent.add(key);
      let reply = await call({ id: nextId++, library: key, smiles: first ? smiles() : undefined, ...req });
      if ('needLibrary' in reply)
        reply = await call({ id: nextId++, library: key, smiles: smiles(), ...req });
      if ('error' in reply) throw new Error(`substructure scan failed: ${reply.error}`);
      if ('invalidQuery' in reply) return { invalidQuery: true };
      if ('needLibrary' in reply) throw new Error('substructure worker lost the library');
      return reply.result;
    },
    async close() {
      await worker?.terminate();
      worker = undefined;
    },
  };
}
