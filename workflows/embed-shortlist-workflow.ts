import { ActivityFailure, TimeoutFailure, proxyActivities, sleep } from '@temporalio/workflow';
import {
  CHEM3D_QUERY_SLOTS,
  type Chem3dActivities,
  type EmbedShortlistResult,
  type EmbedShortlistWorkflowInput,
  type EmbeddedWire,
} from './chem3d-contracts.ts';
import { forEachBounded } from './job-lifecycle.ts';

/** Molecules per activity: small enough that the batches in flight finish close together. */
const DEFAULT_BATCH = 8;
/**
 * A batch stops starting molecules this long before the workflow's deadline, so the molecule it
 * is embedding then (a fraction of a second at 3 conformers) still comes back in time.
 */
const ACTIVITY_MARGIN_MS = 1_500;
/** No batch is started with less time left than this: it could not finish a molecule. */
const MIN_BATCH_MS = ACTIVITY_MARGIN_MS + 500;

/**
 * A synchronous request's molecules (v2 search_cheese's 3D shortlist on a synthon space) embedded
 * on the chem3d worker's query queue in one round trip: batches of `batch` SMILES in input order
 * (the proposal's rank, so the best are embedded first), `parallel` batches in flight (the
 * worker's query slots, one core each), all within `budgetMs`. Whatever is not embedded by then
 * is null and `timedOut` is true: the workflow answers at its deadline even if a batch is still
 * running or the worker never picks one up. No retry: a retried batch would not fit the budget.
 */
export async function embedShortlistWorkflow(
  input: EmbedShortlistWorkflowInput,
): Promise<EmbedShortlistResult> {
  const { smiles, queue, budgetMs, batch = DEFAULT_BATCH, parallel = CHEM3D_QUERY_SLOTS, ...params } = input;
  const deadline = Date.now() + budgetMs;
  const out: (EmbeddedWire | null)[] = smiles.map(() => null);
  let timedOut = false;
  let rdkitVersion = '';
  const batches = Math.ceil(smiles.length / batch);
  const work = forEachBounded(batches, parallel, async (b) => {
    const left = deadline - Date.now();
    if (timedOut || left < MIN_BATCH_MS) {
      timedOut = true;
      return;
    }
    const act = proxyActivities<Chem3dActivities>({
      taskQueue: queue,
      scheduleToStartTimeout: left,
      startToCloseTimeout: left,
      retry: { maximumAttempts: 1 },
    });
    try {
      const r = await act.chem3dEmbedBatch({
        ...params,
        smiles: smiles.slice(b * batch, (b + 1) * batch),
        budgetSeconds: (left - ACTIVITY_MARGIN_MS) / 1000,
      });
      r.molecules.forEach((m, j) => (out[b * batch + j] = m));
      rdkitVersion = r.rdkitVersion;
      if (r.timedOut) timedOut = true;
    } catch (err) {
      // Not picked up or not finished in time (a busy or dead worker): out of budget, not an error.
      if (err instanceof ActivityFailure && err.cause instanceof TimeoutFailure) timedOut = true;
      else throw err;
    }
  });
  await Promise.race([
    work,
    sleep(budgetMs).then(() => {
      timedOut = true;
    }),
  ]);
  return { rdkitVersion, molecules: out.slice(), timedOut: timedOut && out.some((m) => m === null) };
}
