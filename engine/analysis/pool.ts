/**
 * The analysis threads (engine/threads): the synchronous analysis operations (similarity,
 * embeddings, clustering, maps) run here, never on the API's event loop. A thread starts on first
 * use or with start() (the API starts it at boot: loading RDKit takes seconds under load), one
 * request per thread at a time; a bad input rejects with the 422-shaped DomainError of
 * analysisToDomain.
 *
 * No request can stall the others (issue 15): a request is `cheap` or `heavy` by the work it
 * asks for (analysisCost); heavy ones run on at most threads - 1 threads, so with two threads or
 * more a cheap request never waits behind a heavy one, and cheap ones are served first. Every
 * request has a deadline that covers its whole life (cheapMs / heavyMs from when run() is called):
 * still queued then, it is withdrawn; still running, its thread is terminated (and replaced), so
 * overdue work stops using CPU; both answer `overloaded` (503, retry). Aborting `signal` (the
 * client went away) withdraws a queued request.
 */
import { DomainError } from '../../platform/errors.ts';
import { createThreadPool, type ThreadPool } from '../threads/index.ts';
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

/** Molecules parsed plus pairs compared, roughly: what a request costs on a thread. */
export function analysisCost(req: AnalysisRequest): number {
  switch (req.op) {
    case 'pair':
      return 2;
    case 'batch':
      return req.list.length + 1;
    case 'matrix': {
      const n1 = req.list1.length;
      const n2 = req.list2?.length ?? n1;
      return n1 + n2 + (n1 * n2) / 100;
    }
    case 'cluster':
      return req.smiles.length + req.smiles.length ** 2 / 100;
    case 'map':
      // Layouts iterate over the whole set many times.
      return req.smiles.length * 50;
    default:
      return req.smiles.length;
  }
}

/** Cost up to which a request is cheap (about 2,000 molecules parsed: tens of ms). */
export const CHEAP_COST = 2000;

export interface AnalysisRunOptions {
  /** Withdraws the request while queued (e.g. the client closed the connection). */
  signal?: AbortSignal;
  /** Aborting also stops it while it runs (a cancelled job activity): engine/threads RunOptions. */
  stopOnAbort?: boolean;
}

export interface AnalysisPoolOptions {
  threads?: number;
  maxQueue?: number;
  /** Whole-life deadline of a cheap request (default 30 s, the API request deadline). */
  cheapMs?: number;
  /** Whole-life deadline of a heavy request (default 120 s). */
  heavyMs?: number;
}

export interface AnalysisPool {
  run<R extends AnalysisRequest>(req: R, opts?: AnalysisRunOptions): Promise<AnalysisAnswers[R['op']]>;
  /** Starts every thread now; rejects with a thread's setup error (a later run() retries). */
  start(): Promise<void>;
  /** Threads alive now. */
  threads(): number;
  /** What each thread holds (heaps, RDKit's WASM heap): see engine/threads. */
  memory(): ReturnType<ThreadPool<AnalysisRequest, unknown>['memory']>;
  close(): Promise<void>;
}

/** A pool of `threads` (default 2) analysis threads; requests beyond `maxQueue` waiting are refused (503). */
export function createAnalysisPool(opts: AnalysisPoolOptions = {}): AnalysisPool {
  const size = Math.max(1, Math.min(opts.threads ?? 2, 4));
  const cheapMs = opts.cheapMs ?? 30_000;
  const heavyMs = opts.heavyMs ?? 120_000;
  const threads = createThreadPool<AnalysisRequest, unknown>({
    name: 'analysis',
    script: new URL('./worker.ts', import.meta.url),
    size,
    lanes: ['cheap', 'heavy'],
    laneLimits: { heavy: Math.max(1, size - 1) },
    terminateOverdue: true,
    maxQueue: opts.maxQueue ?? 64,
    unrefIdle: true,
    errors: {
      closed: () => new DomainError('unavailable', 'analysis threads are closed'),
      died: (cause) => new DomainError('unavailable', 'an analysis thread exited', { cause }),
      timedOut: (queued) =>
        new DomainError(
          'overloaded',
          queued
            ? 'the analysis threads are busy: the request waited past its deadline; retry shortly'
            : 'the analysis request ran past its deadline and was stopped; send less work',
          { retryAfterSeconds: 1 },
        ),
    },
  });
  return {
    run: <R extends AnalysisRequest>(req: R, ro: AnalysisRunOptions = {}) => {
      const heavy = analysisCost(req) > CHEAP_COST;
      return threads.run(req, {
        lane: heavy ? 'heavy' : 'cheap',
        deadline: Date.now() + (heavy ? heavyMs : cheapMs),
        signal: ro.signal,
        stopOnAbort: ro.stopOnAbort,
      }) as Promise<AnalysisAnswers[R['op']]>;
    },
    start: async () => void (await threads.start()),
    threads: () => threads.stats().threads,
    memory: () => threads.memory(),
    close: () => threads.close(),
  };
}
