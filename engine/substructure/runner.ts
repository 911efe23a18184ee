/**
 * Runs substructure scans on a dedicated engine thread (engine/threads; never the caller's event
 * loop), one scan at a time in arrival order. Library SMILES are sent to the thread once per
 * library key (again to a replacement if the thread dies).
 */
import { createThreadPool } from '../threads/index.ts';
import type { SubstructureScanResult } from './scan.ts';

export interface SubstructureRequest {
  library: string;
  /** The library's rows, sent the first time this thread sees `library`. */
  smiles?: string[];
  format: 'smarts' | 'smiles';
  query: string;
  limit: number;
  timeoutMs: number;
}
export type SubstructureReply = { result: SubstructureScanResult } | { invalidQuery: true };

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
  const thread = createThreadPool<SubstructureRequest, SubstructureReply>({
    name: 'substructure',
    script: new URL('./worker.ts', import.meta.url),
    size: 1,
    unrefIdle: true,
  });
  return {
    async scan(key, smiles, req) {
      const reply = await thread
        .run((t) => {
          const first = !t.seen.has(key);
          t.seen.add(key);
          return { library: key, smiles: first ? smiles() : undefined, ...req };
        })
        .catch((err: Error) => {
          throw new Error(`substructure scan failed: ${err.message}`, { cause: err });
        });
      return 'invalidQuery' in reply ? { invalidQuery: true } : reply.result;
    },
    close: () => thread.close(),
  };
}
