// Filter worker thread: one RDKit module and one lazily compiled filter context per thread.
import { parentPort } from 'node:worker_threads';
import { getRDKit } from '../chem/index.ts';
import { createFilterContext, evaluateFilters, type FilterContext } from './evaluate.ts';
import type { FilterWorkerReply, FilterWorkerRequest } from './filter-pool.ts';

let ctx: FilterContext | undefined;

parentPort!.on('message', async (msg: FilterWorkerRequest) => {
  let reply: FilterWorkerReply;
  try {
    ctx ??= createFilterContext(await getRDKit());
    const v = evaluateFilters(ctx, msg);
    reply = { id: msg.id, pass: v.pass, qed: v.qed };
  } catch (err) {
    reply = { id: msg.id, error: (err as Error).message, code: (err as { code?: string }).code };
  }
  parentPort!.postMessage(reply);
});
