/**
 * The limits of the HTTP request being served, for the engine pools a service calls (issue 15:
 * no request can hurt another): a whole-life deadline counted from the request's arrival, and a
 * signal that aborts when the client closes the connection. Every synchronous CPU pool call made
 * on behalf of a request passes them, so work nobody waits for any more is withdrawn from the
 * queues instead of holding threads. The API's request-limits plugin sets them for each request
 * (AsyncLocalStorage, so no route has to thread them through); outside a request (jobs, tests
 * calling services directly) there are none.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export interface RequestLimits {
  /** Date.now() ms by which the answer is due (queue included). */
  deadline?: number;
  /** Aborts when the client goes away. */
  signal?: AbortSignal;
}

const store = new AsyncLocalStorage<RequestLimits>();

/** The limits of the request whose handling is running now ({} outside a request). */
export function requestLimits(): RequestLimits {
  return store.getStore() ?? {};
}

/** Runs `fn` (and everything it starts) under `limits`. */
export function withRequestLimits<T>(limits: RequestLimits, fn: () => T): T {
  return store.run(limits, fn);
}
