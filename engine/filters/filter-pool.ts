/**
 * A small pool of RDKit worker threads for the per-row filters (PAINS alone is 480 substructure
 * matches per molecule), so they never run on the API's event loop. Threads start on first use
 * and each compiles its queries once; a batch is split across threads in contiguous chunks and
 * the verdicts come back in input order.
 */
import { Worker } from 'node:worker_threads';
import type { FilterRequest } from './evaluate.ts';

export type FilterWorkerRequest = FilterRequest & { id: number };
export type FilterWorkerReply =
  { id: number; pass: Uint8Array; qed?: Float64Array } | { id: number; error: string; code?: string };

export interface FilterResult {
  /** Per candidate: passes every requested RDKit filter. */
  pass: boolean[];
  /** Per candidate QED (null when unparsable) when the QED filter was requested. */
  qed?: (number | null)[];
}

export interface FilterPool {
  /**
   * Evaluates the RDKit filters among `filters` (QED, PAINS, Substructure, Superstructure; other
   * names are ignored) for each SMILES, relative to `query` for the structure filters. Rejects
   * with an Error whose `code` is 'invalid_smiles' when the query cannot be parsed.
   */
  evaluate(
    smiles: string[],
    filters: readonly string[],
    opts?: { query?: string; descriptors?: FilterRequest['descriptors'] },
  ): Promise<FilterResult>;
  close(): Promise<void>;
}

/** Below this many candidates per thread a batch stays on one thread (messages cost more). */
const MIN_CHUNK = 24;

/** A pool of at most `threads` (default 2) filter threads, started lazily. */
export function createFilterPool(opts: { threads?: number } = {}): FilterPool {
  const size = Math.max(1, Math.min(opts.threads ?? 2, 4));
  const workers: (Worker | undefined)[] = new Array(size).fill(undefined);
  const pending = new Map<number, { resolve: (r: FilterWorkerReply) => void; worker: number }>();
  let nextId = 1;

  const start = (i: number): Worker => {
    const existing = workers[i];
    if (existing) return existing;
    const w = new Worker(new URL('./filter-worker.ts', import.meta.url));
    w.unref();
    w.on('message', (r: FilterWorkerReply) => {
      pending.get(r.id)?.resolve(r);
      pending.delete(r.id);
    });
    w.on('error', (err) => {
      workers[i] = undefined;
      for (const [id, p] of pending) {
        if (p.worker !== i) continue;
        p.resolve({ id, error: err.message });
        pending.delete(id);
      }
    });
    workers[i] = w;
    return w;
  };

  const call = (i: number, req: FilterRequest) =>
    new Promise<FilterWorkerReply>((resolve) => {
      const id = nextId++;
      pending.set(id, { resolve, worker: i });
      start(i).postMessage({ id, ...req } satisfies FilterWorkerRequest);
    });

  return {
    async evaluate(smiles, filters, o = {}) {
      if (smiles.length === 0) return { pass: [], qed: filters.includes('QED') ? [] : undefined };
      const chunks = Math.min(size, Math.ceil(smiles.length / MIN_CHUNK));
      const per = Math.ceil(smiles.length / chunks);
      const replies = await Promise.all(
        Array.from({ length: chunks }, (_, c) =>
          call(c, {
            smiles: smiles.slice(c * per, (c + 1) * per),
            filters: [...filters],
            query: o.query,
            descriptors: o.descriptors?.slice(c * per, (c + 1) * per),
          }),
        ),
      );
      const pass: boolean[] = [];
      const qed: (number | null)[] | undefined = filters.includes('QED') ? [] : undefined;
      for (const r of replies) {
        if ('error' in r)
          throw Object.assign(new Error(`filter evaluation failed: ${r.error}`), { code: r.code });
        for (const p of r.pass) pass.push(p === 1);
        if (qed && r.qed) for (const v of r.qed) qed.push(Number.isNaN(v) ? null : v);
      }
      return { pass, qed };
    },
    async close() {
      await Promise.all(workers.map((w) => w?.terminate()));
      workers.fill(undefined);
    },
  };
}
