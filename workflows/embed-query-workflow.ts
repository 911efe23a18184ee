import { proxyActivities } from '@temporalio/workflow';
import type { EmbedQueryResult, EmbedQueryWorkflowInput, Chem3dActivities } from './chem3d-contracts.ts';

/**
 * Embeds one query SMILES on the Python worker's query queue within `deadlineMs`: a quarter of
 * the budget to be picked up (no worker polling → fails fast instead of queueing), the rest to
 * embed, no retry (a query that failed once within its deadline would fail again). The result
 * (one molecule, a few KB) is the workflow's result; an unembeddable SMILES is `ok: false`.
 * The worker gets the embedding time less a second as its own budget (unless the input sets one),
 * so a molecule that embeds too slowly comes back as `timedOut` before start-to-close fires.
 */
export async function embedQueryWorkflow(input: EmbedQueryWorkflowInput): Promise<EmbedQueryResult> {
  const { queue, deadlineMs, ...req } = input;
  const pickup = Math.max(1000, Math.floor(deadlineMs / 4));
  const embedMs = Math.max(1000, deadlineMs - pickup);
  const act = proxyActivities<Chem3dActivities>({
    taskQueue: queue,
    scheduleToStartTimeout: pickup,
    startToCloseTimeout: embedMs,
    retry: { maximumAttempts: 1 },
  });
  return act.chem3dEmbedQuery({ budgetSeconds: Math.max(0.5, (embedMs - 1000) / 1000), ...req });
}
