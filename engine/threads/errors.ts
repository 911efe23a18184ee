/** The errors a thread pool (engine/threads/pool.ts) rejects with, by default or as its options name them. */
import { DomainError } from '../../platform/errors.ts';
import type { ThreadPoolOptions } from './types.ts';

export function poolErrors(opts: ThreadPoolOptions) {
  const closed = opts.errors?.closed ?? (() => new DomainError('unavailable', `${opts.name} pool is closed`));
  const died =
    opts.errors?.died ??
    ((cause: unknown) => new DomainError('internal', `${opts.name} thread failed`, { cause }));
  const timedOut =
    opts.errors?.timedOut ??
    ((queued: boolean) =>
      new DomainError(
        'overloaded',
        queued
          ? `the ${opts.name} request waited past its deadline; retry shortly`
          : `the ${opts.name} request ran past its deadline and was stopped`,
        { retryAfterSeconds: 1 },
      ));
  const overloaded =
    opts.errors?.overloaded ??
    ((n: number) =>
      new DomainError('overloaded', `${n} ${opts.name} requests are waiting; retry shortly`, {
        retryAfterSeconds: 1,
      }));
  return { closed, died, timedOut, overloaded };
}
