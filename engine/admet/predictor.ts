/**
 * The ADMET predictor: a small engine thread pool (engine/threads), each with its own RDKit and the 22 ONNX
 * sessions (one intra-op thread each), so predictions never run on the caller's event loop.
 * Requests are cut into batches of `batchRows`; batches of one request run on all threads.
 */
import { DomainError } from '../../platform/errors.ts';
import { DESCRIPTOR_NAMES } from '../chem/descriptors.ts';
import { ADMET_ENDPOINTS } from './endpoints.ts';
import type { AdmetTable } from './predict.ts';
import { createThreadPool, type RunOptions } from '../threads/index.ts';

export interface AdmetPredictorOptions {
  /** Worker threads (default 1). */
  threads?: number;
  /** Rows per batch sent to a thread (default 256). */
  batchRows?: number;
  /** Model directory (default models/onnx). */
  modelDir?: string;
}

export interface AdmetPredictor {
  /** Model version (models/onnx/manifest.json `version`), known once the threads are up. */
  readonly modelVersion: string;
  /** Predicts every SMILES; rows keep input order. Bad SMILES give a row error, never a throw. */
  /**
   * Predicts in batches of `batchRows` on the threads. A request's first batch waits in a priority
   * lane ahead of the later batches of large requests, so a one-molecule request is not queued
   * behind a 10,000-molecule one; `deadline` (queue included) and `signal` withdraw what is still
   * queued (`overloaded` / the signal's reason).
   */
  predictSmiles(
    smiles: readonly string[],
    limits?: { deadline?: number; signal?: AbortSignal },
  ): Promise<AdmetTable>;
  close(): Promise<void>;
}

/**
 * Starts the threads and waits until each has loaded RDKit and the models. Throws DomainError
 * `unavailable` when the models cannot be loaded.
 */
export async function createAdmetPredictor(opts: AdmetPredictorOptions = {}): Promise<AdmetPredictor> {
  const batchRows = Math.max(1, opts.batchRows ?? 256);
  const threads = createThreadPool<string[], AdmetTable>({
    name: 'ADMET predictor',
    script: new URL('./predictor-worker.ts', import.meta.url),
    size: Math.max(1, opts.threads ?? 1),
    lanes: ['first', 'more'],
    workerData: () => ({ modelDir: opts.modelDir }),
    errors: {
      closed: () => new DomainError('unavailable', 'ADMET predictor is closed'),
      died: (cause) => new DomainError('unavailable', 'ADMET predictor thread exited', { cause }),
    },
  });
  let version = '';
  try {
    const infos = (await threads.start()) as { version: string }[];
    version = infos[0]?.version ?? '';
  } catch (err) {
    await threads.close();
    throw new DomainError('unavailable', `ADMET predictor could not start: ${(err as Error).message}`, {
      cause: err,
    });
  }
  const runBatch = (smiles: string[], ro: RunOptions): Promise<AdmetTable> =>
    threads.run(smiles, ro).catch((err: unknown) => {
      throw err instanceof DomainError ? err : new Error(`ADMET batch failed: ${(err as Error).message}`);
    });

  return {
    get modelVersion() {
      return version;
    },
    async predictSmiles(smiles, limits = {}) {
      const parts: Promise<AdmetTable>[] = [];
      for (let s = 0; s < smiles.length; s += batchRows)
        parts.push(runBatch(smiles.slice(s, s + batchRows), { lane: s === 0 ? 'first' : 'more', ...limits }));
      if (parts.length === 1) return parts[0];
      // One failed batch fails the request: settle the others so none rejects unobserved.
      const settled = await Promise.allSettled(parts);
      const failed = settled.find((r) => r.status === 'rejected');
      if (failed) throw failed.reason;
      return concatTables(settled.map((r) => (r as PromiseFulfilledResult<AdmetTable>).value));
    },
    close: () => threads.close(),
  };
}

/** Joins batch tables in order (scores stay endpoint-major over the joined rows). */
export function concatTables(tables: AdmetTable[]): AdmetTable {
  const n = tables.reduce((s, t) => s + t.n, 0);
  const nd = DESCRIPTOR_NAMES.length;
  const out: AdmetTable = {
    n,
    canonical: [],
    errors: [],
    descriptors: new Float64Array(n * nd),
    scores: new Float32Array(ADMET_ENDPOINTS.length * n),
    ood: new Uint32Array(n),
  };
  let base = 0;
  for (const t of tables) {
    out.canonical.push(...t.canonical);
    out.errors.push(...t.errors);
    out.descriptors.set(t.descriptors, base * nd);
    out.ood.set(t.ood, base);
    for (let e = 0; e < ADMET_ENDPOINTS.length; e++)
      out.scores.set(t.scores.subarray(e * t.n, (e + 1) * t.n), e * n + base);
    base += t.n;
  }
  return out;
}
