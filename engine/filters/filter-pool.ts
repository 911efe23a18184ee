/**
 * A small engine thread pool (engine/threads) of RDKit threads for the per-row filters (PAINS alone is 480 substructure
 * matches per molecule), so they never run on the API's event loop. Threads start on first use
 * and each compiles its queries once; a batch is split across threads in contiguous chunks and
 * the verdicts come back in input order.
 */
import type { FilterRequest } from './evaluate.ts';
import { DomainError } from '../../platform/errors.ts';
import { createThreadPool } from '../threads/index.ts';

/** A thread's verdicts for its chunk: 1 = passes, and QED per candidate (NaN when unparsable). */
export interface FilterVerdicts {
  pass: Uint8Array;
  qed?: Float64Array;
}

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
   * with an Error whose `code` is 'invalid_smiles' when the query cannot be parsed. `deadline`
   * (queue included) and `signal` withdraw chunks still queued (DomainError `overloaded` / the
   * signal's reason), as for every synchronous pool (engine/README.md, Deadlines).
   */
  evaluate(
    smiles: string[],
    filters: readonly string[],
    opts?: {
      query?: string;
      descriptors?: FilterRequest['descriptors'];
      deadline?: number;
      signal?: AbortSignal;
    },
  ): Promise<FilterResult>;
  close(): Promise<void>;
}

/** Below this many candidates per thread a batch stays on one thread (messages cost more). */
const MIN_CHUNK = 24;

/** A pool of at most `threads` (default 2) filter threads, started lazily. */
export function createFilterPool(opts: { threads?: number } = {}): FilterPool {
  const size = Math.max(1, Math.min(opts.threads ?? 2, 4));
  const threads = createThreadPool<FilterRequest, FilterVerdicts>({
    name: 'filter',
    script: new URL('./filter-worker.ts', import.meta.url),
    size,
    unrefIdle: true,
  });

  return {
    async evaluate(smiles, filters, o = {}) {
      if (smiles.length === 0) return { pass: [], qed: filters.includes('QED') ? [] : undefined };
      const chunks = Math.min(size, Math.ceil(smiles.length / MIN_CHUNK));
      const per = Math.ceil(smiles.length / chunks);
      const replies = await Promise.all(
        Array.from({ length: chunks }, (_, c) =>
          threads
            .run(
              {
                smiles: smiles.slice(c * per, (c + 1) * per),
                filters: [...filters],
                query: o.query,
                descriptors: o.descriptors?.slice(c * per, (c + 1) * per),
              },
              { deadline: o.deadline, signal: o.signal },
            )
            .catch((err: Error & { code?: string }) => {
              // Withdrawn (deadline, client gone): the pool's own error, as is.
              if ((err instanceof DomainError && err.code === 'overloaded') || o.signal?.aborted) throw err;
              throw Object.assign(new Error(`filter evaluation failed: ${err.message}`), { code: err.code });
            }),
        ),
      );
      const pass: boolean[] = [];
      const qed: (number | null)[] | undefined = filters.includes('QED') ? [] : undefined;
      for (const r of replies) {
        for (const p of r.pass) pass.push(p === 1);
        if (qed && r.qed) for (const v of r.qed) qed.push(Number.isNaN(v) ? null : v);
      }
      return { pass, qed };
    },
    close: () => threads.close(),
  };
}
