/**
 * The thread side of a pool: `serveThread(setup)` runs once in a worker-thread entry file. `setup`
 * loads what the thread keeps (RDKit, models, kernel memories) and returns the handler; the pool
 * is told `ready` (with `info`) or `failed` (with the error). Requests are handled one at a time,
 * in arrival order, so per-thread registration messages (e.g. shared memories) always precede the
 * work sent after them.
 */
import { parentPort, workerData, type TransferListItem } from 'node:worker_threads';
import { serializeError, type RequestEnvelope, type ThreadEnvelope } from './protocol.ts';
import { isolateMemory } from '../../platform/memory.ts';

export interface ThreadService<Req, Res> {
  /** Reported to the pool with `ready` (e.g. a model version). */
  info?: unknown;
  /** Handles one request; throw to reject it. Return withTransfer(...) to move buffers instead of copying. */
  handle(request: Req): Res | Transfer<Res> | Promise<Res | Transfer<Res>>;
}

const TRANSFER = Symbol('transfer');

/** The WebAssembly global (its types are not in this project's libs). */
const WASM = (globalThis as unknown as { WebAssembly: { RuntimeError: new () => Error } }).WebAssembly;

/** A reply whose buffers are moved to the pool, not copied (typed-array results). */
export interface Transfer<T> {
  [TRANSFER]: TransferListItem[];
  value: T;
}

export function withTransfer<T>(value: T, transfer: TransferListItem[]): Transfer<T> {
  return { [TRANSFER]: transfer, value };
}

const isTransfer = (v: unknown): v is Transfer<unknown> =>
  typeof v === 'object' && v !== null && TRANSFER in (v as object);

/** Serves requests of a thread pool in this worker thread (call once, at the top of the entry file). */
export function serveThread<Req, Res>(
  setup: (data: unknown) => ThreadService<Req, Res> | Promise<ThreadService<Req, Res>>,
): void {
  if (!parentPort) throw new Error('serveThread() must run in a worker thread');
  const port = parentPort;
  const post = (m: ThreadEnvelope<Res>, transfer?: TransferListItem[]) => port.postMessage(m, transfer);
  let chain: Promise<unknown> = Promise.resolve();
  const service = Promise.resolve()
    .then(() => setup(workerData))
    .then(
      (s) => {
        post({ t: 'ready', info: s.info });
        return s;
      },
      (err: unknown) => {
        post({ t: 'failed', error: serializeError(err) });
        return undefined;
      },
    );
  port.on('message', (msg: RequestEnvelope<Req>) => {
    // Probes skip the chain: they must not wait behind queued work (a thread busy with a
    // synchronous slice answers right after it).
    if (msg.probe === 'memory')
      return post({ t: 'reply', id: msg.id, ok: true, value: isolateMemory() as Res });
    chain = chain.then(async () => {
      const s = await service;
      if (!s) return; // setup failed: the pool already knows and fails this request
      try {
        const out = await s.handle(msg.body);
        if (isTransfer(out))
          post({ t: 'reply', id: msg.id, ok: true, value: out.value as Res }, out[TRANSFER]);
        else post({ t: 'reply', id: msg.id, ok: true, value: out });
      } catch (err) {
        // A WebAssembly trap (RDKit's heap corrupted: "memory access out of bounds") leaves that
        // module unusable for every later request: the pool retires this thread for a fresh one.
        const retire = err instanceof WASM.RuntimeError;
        post({
          t: 'reply',
          id: msg.id,
          ok: false,
          error: serializeError(err),
          ...(retire ? { retire } : {}),
        });
      }
    });
  });
}
