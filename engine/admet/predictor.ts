/**
 * The ADMET predictor: a small pool of worker threads, each with its own RDKit and the 22 ONNX
 * sessions (one intra-op thread each), so predictions never run on the caller's event loop.
 * Requests are cut into batches of `batchRows`; batches of one request run on all threads.
 */
import { Worker } from 'node:worker_threads';
import { DomainError } from '../../platform/errors.ts';
import { DESCRIPTOR_NAMES } from '../chem/descriptors.ts';
import { ADMET_ENDPOINTS } from './endpoints.ts';
import type { AdmetTable } from './predict.ts';

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
  predictSmiles(smiles: readonly string[]): Promise<AdmetTable>;
  close(): Promise<void>;
}

interface Task {
  id: number;
  smiles: string[];
  resolve: (t: AdmetTable) => void;
  reject: (e: Error) => void;
}

/**
 * Starts the threads and waits until each has loaded RDKit and the models. Throws DomainError
 * `unavailable` when the models cannot be loaded.
 */
export async function createAdmetPredictor(opts: AdmetPredictorOptions = {}): Promise<AdmetPredictor> {
  const batchRows = Math.max(1, opts.batchRows ?? 256);
  const queue: Task[] = [];
  const idle: Worker[] = [];
  const busy = new Map<Worker, Task>();
  let nextId = 0;
  let closed = false;
  let version = '';
  const workers = Array.from(
    { length: Math.max(1, opts.threads ?? 1) },
    () =>
      new Worker(new URL('./predictor-worker.ts', import.meta.url), {
        workerData: { modelDir: opts.modelDir },
      }),
  );
  const pump = (): void => {
    while (idle.length && queue.length) {
      const w = idle.pop()!;
      const t = queue.shift()!;
      busy.set(w, t);
      w.postMessage({ id: t.id, smiles: t.smiles });
    }
  };
  const failAll = (err: Error): void => {
    for (const t of busy.values()) t.reject(err);
    busy.clear();
    for (const t of queue.splice(0)) t.reject(err);
  };
  try {
    await Promise.all(
      workers.map(
        (w) =>
          new Promise<void>((resolve, reject) => {
            w.on(
              'message',
              (msg: {
                ready?: true;
                version?: string;
                failed?: string;
                id?: number;
                table?: AdmetTable;
                error?: string;
              }) => {
                if (msg.failed)
                  return reject(
                    new DomainError('unavailable', `ADMET predictor could not start: ${msg.failed}`),
                  );
                if (msg.ready) {
                  version = msg.version ?? '';
                  idle.push(w);
                  resolve();
                  return pump();
                }
                const t = busy.get(w);
                busy.delete(w);
                idle.push(w);
                if (t && msg.table) t.resolve(msg.table);
                else t?.reject(new Error(`ADMET batch failed: ${msg.error}`));
                pump();
              },
            );
            w.on('error', (err) => {
              reject(err);
              failAll(err);
            });
            w.on('exit', (code) => {
              if (!closed) failAll(new DomainError('unavailable', `ADMET predictor thread exited (${code})`));
            });
          }),
      ),
    );
  } catch (err) {
    closed = true;
    await Promise.all(workers.map((w) => w.terminate()));
    throw err;
  }

  const runBatch = (smiles: string[]): Promise<AdmetTable> =>
    new Promise((resolve, reject) => {
      if (closed) return reject(new DomainError('unavailable', 'ADMET predictor is closed'));
      queue.push({ id: nextId++, smiles, resolve, reject });
      pump();
    });

  return {
    get modelVersion() {
      return version;
    },
    async predictSmiles(smiles) {
      const parts: Promise<AdmetTable>[] = [];
      for (let s = 0; s < smiles.length; s += batchRows) parts.push(runBatch(smiles.slice(s, s + batchRows)));
      if (parts.length === 1) return parts[0];
      return concatTables(await Promise.all(parts));
    },
    async close() {
      closed = true;
      failAll(new DomainError('unavailable', 'ADMET predictor is closed'));
      await Promise.all(workers.map((w) => w.terminate()));
    },
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
