/**
 * The analysis threads (engine/threads): the synchronous analysis operations (similarity,
 * embeddings, clustering, maps) run here, never on the API's event loop. A thread starts on first
 * use or with start() (the API starts it at boot: loading RDKit takes seconds under load), one
 * request per thread at a time; a bad input rejects with the 422-shaped DomainError of
 * analysisToDomain.
 */
import { DomainError } from '../../platform/errors.ts';
import { createThreadPool } from '../threads/index.ts';
import type {
  AnalysisRequest,
  BatchAnswer,
  CentroidAnswer,
  ClusterAnswer,
  EmbeddingsAnswer,
  MapAnswer,
  MatrixAnswer,
  NearestClusterAnswer,
  PairAnswer,
} from './ops/index.ts';

/** The answer type of each request op. */
export interface AnalysisAnswers {
  pair: PairAnswer;
  batch: BatchAnswer;
  matrix: MatrixAnswer;
  embeddings: EmbeddingsAnswer;
  centroid: CentroidAnswer;
  cluster: ClusterAnswer;
  nearest_cluster: NearestClusterAnswer;
  map: MapAnswer;
}

export interface AnalysisPool {
  run<R extends AnalysisRequest>(req: R): Promise<AnalysisAnswers[R['op']]>;
  /** Starts every thread now; rejects with a thread's setup error (a later run() retries). */
  start(): Promise<void>;
  /** Threads alive now. */
  threads(): number;
  close(): Promise<void>;
}

/** A pool of `threads` (default 1) analysis threads; requests beyond `maxQueue` waiting are refused (503). */
export function createAnalysisPool(opts: { threads?: number; maxQueue?: number } = {}): AnalysisPool {
  const threads = createThreadPool<AnalysisRequest, unknown>({
    name: 'analysis',
    script: new URL('./worker.ts', import.meta.url),
    size: Math.max(1, Math.min(opts.threads ?? 1, 4)),
    maxQueue: opts.maxQueue ?? 64,
    unrefIdle: true,
    errors: {
      closed: () => new DomainError('unavailable', 'analysis threads are closed'),
      died: (cause) => new DomainError('unavailable', 'an analysis thread exited', { cause }),
    },
  });
  return {
    run: <R extends AnalysisRequest>(req: R) => threads.run(req) as Promise<AnalysisAnswers[R['op']]>,
    start: async () => void (await threads.start()),
    threads: () => threads.stats().threads,
    close: () => threads.close(),
  };
}
