/**
 * Runs substructure scans on engine threads (engine/threads; never the caller's event loop), in
 * time slices so that one expensive query cannot hold a thread while cheap ones wait:
 *
 * - a scan is a chain of slices of at most `sliceMs` each (10 ms: a message round trip to the
 *   thread costs well under 1 ms); after a slice the scan is queued again,
 *   behind what waits, so long scans share the threads round-robin;
 * - the first slice of a request waits in a priority lane ('first') ahead of the continuations of
 *   running scans ('more'): a cheap query (most finish in their first slice) is answered after at
 *   most one slice per thread of waiting, however many expensive scans run;
 * - the deadline is absolute and covers the whole request, queue included: a slice still queued at
 *   the deadline is withdrawn, and the thread stops a slice at the deadline (checked after every
 *   row), so timed-out work stops using CPU at once and the answer is partial with `timedOut`.
 *
 * Library SMILES are sent to a thread once per library key (again to a replacement if it dies).
 */
import { createThreadPool, type ThreadPoolStats } from '../threads/index.ts';
import type { SubstructureScanResult, SubstructureSlice } from './scan.ts';

export interface SubstructureRequest {
  library: string;
  /** The library's rows, sent the first time this thread sees `library`. */
  smiles?: string[];
  format: 'smarts' | 'smiles';
  query: string;
  /** Hits still wanted. */
  limit: number;
  /** First row of this slice. */
  from: number;
  /** End of this slice, Date.now() ms. */
  until: number;
  /** The request's deadline (the slice does nothing past it). */
  deadline: number;
}
export type SubstructureReply = { result: SubstructureSlice } | { invalidQuery: true };

export interface SubstructureQuery {
  format: 'smarts' | 'smiles';
  query: string;
  limit: number;
  /** Absolute deadline (Date.now() ms), the request's whole life; or `timeoutMs` from now. */
  deadline?: number;
  timeoutMs?: number;
  /** Aborting (e.g. the client went away) withdraws the scan; it rejects with the signal's reason. */
  signal?: AbortSignal;
}

export interface SubstructureRunner {
  /**
   * Scans library `key` (rows given by `smiles()`, called only the first time a thread sees a
   * key) for `query`; resolves `{ invalidQuery: true }` when RDKit cannot parse it.
   */
  scan(
    key: string,
    smiles: () => string[],
    req: SubstructureQuery,
  ): Promise<SubstructureScanResult | { invalidQuery: true }>;
  /** Starts every thread now (RDKit loaded), so the first requests do not pay for it. */
  start(): Promise<void>;
  /** The threads' load: busy threads and slices waiting (a finished or timed-out scan leaves none). */
  stats(): ThreadPoolStats;
  close(): Promise<void>;
}

export interface SubstructureRunnerOptions {
  /** Threads (default 2). */
  threads?: number;
  /** Longest slice of one scan before it yields the thread (default 10 ms). */
  sliceMs?: number;
  /** Slices waiting beyond which a new scan is refused as overloaded (default 512). */
  maxQueue?: number;
  /** Memory of each thread's index of pickled molecules and pattern fingerprints (default unbounded). */
  indexBytes?: number;
}

export function createSubstructureRunner(opts: SubstructureRunnerOptions = {}): SubstructureRunner {
  const sliceMs = opts.sliceMs ?? 10;
  const pool = createThreadPool<SubstructureRequest, SubstructureReply>({
    name: 'substructure',
    script: new URL('./worker.ts', import.meta.url),
    size: opts.threads ?? 2,
    workerData: () => ({ indexBytes: opts.indexBytes }),
    lanes: ['first', 'more'],
    maxQueue: opts.maxQueue ?? 512,
    unrefIdle: true,
  });
  return {
    async scan(key, smiles, req) {
      const deadline = req.deadline ?? Date.now() + (req.timeoutMs ?? 0);
      const acc: SubstructureScanResult = {
        hits: [],
        scanned: 0,
        prefiltered: 0,
        invalid: 0,
        timedOut: false,
      };
      let from = 0;
      for (let lane = 'first'; ; lane = 'more') {
        const remaining = deadline - Date.now();
        if (remaining <= 0) return { ...acc, timedOut: true };
        const expiry = AbortSignal.timeout(Math.ceil(remaining));
        const signal = req.signal ? AbortSignal.any([expiry, req.signal]) : expiry;
        let reply: SubstructureReply;
        try {
          reply = await pool.run(
            (t) => {
              const first = !t.seen.has(key);
              t.seen.add(key);
              const until = Math.min(deadline, Date.now() + sliceMs);
              const limit = req.limit - acc.hits.length;
              return {
                library: key,
                smiles: first ? smiles() : undefined,
                ...req,
                limit,
                from,
                until,
                deadline,
              };
            },
            { lane, signal },
          );
        } catch (err) {
          if (expiry.aborted && !req.signal?.aborted) return { ...acc, timedOut: true };
          if (req.signal?.aborted) throw err;
          throw new Error(`substructure scan failed: ${(err as Error).message}`, { cause: err });
        }
        if ('invalidQuery' in reply) return reply;
        const s = reply.result;
        acc.hits.push(...s.hits);
        acc.scanned += s.scanned;
        acc.prefiltered += s.prefiltered;
        acc.invalid += s.invalid;
        from = s.nextRow;
        if (s.done) return acc;
      }
    },
    start: async () => void (await pool.start()),
    stats: () => pool.stats(),
    close: () => pool.close(),
  };
}
