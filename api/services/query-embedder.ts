import { randomUUID } from 'node:crypto';
import { WorkflowFailedError, type WorkflowClient } from '@temporalio/client';
import { DomainError, validationError } from '../../platform/errors.ts';
import { moleculeFromBase64, type Molecule3d } from '../../engine/catalog/three-d-schema.ts';
import {
  CHEM3D_WORKFLOWS,
  chem3dQueue,
  taskQueue,
  type EmbedQueryResult,
  type EmbedQueryWorkflowInput,
  type EmbedShortlistResult,
  type EmbedShortlistWorkflowInput,
} from '../../workflows/contracts.ts';

/** temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY (no direct proto dependency). */
const ACTIVITY_QUEUE = 2;
/** A poller seen this recently counts as alive; long polls renew about every minute. */
const POLLER_FRESH_MS = 90_000;
export const CHEM3D_RETRY_AFTER_SECONDS = 30;

export interface QueryEmbedder {
  /** The query in 3D, or 422 naming `search_input` with the reason, or 503 when no worker answers. */
  embed(smiles: string, loc?: (string | number)[]): Promise<Molecule3d>;
  /**
   * Many molecules of one synchronous request embedded within `budgetMs` (embedShortlistWorkflow:
   * batches on the query queue, the worker's slots in use). Per molecule, in input order: its
   * conformers, the reason it cannot be embedded, or null when the budget ran out first. Callers
   * check the worker first (`embed` of the query does); 503 only when the workflow itself fails.
   */
  embedShortlist(smiles: string[], opts: { budgetMs: number; confs: number }): Promise<EmbeddedShortlist>;
}

export interface EmbeddedShortlist {
  molecules: Array<{ ok: true; molecule: Molecule3d } | { ok: false; reason: string } | null>;
  timedOut: boolean;
}

function unavailable(why: string, cause?: unknown): DomainError {
  return new DomainError('unavailable', `3D search is unavailable: ${why}; morgan search still works`, {
    retryAfterSeconds: CHEM3D_RETRY_AFTER_SECONDS,
    cause,
  });
}

/**
 * Embeds query SMILES on the Python chem3d worker through embedQueryWorkflow, within `deadlineMs`.
 * Fails fast (one RPC) when no chem3d worker polls the query queue.
 */
export function createQueryEmbedder(deps: {
  workflows: WorkflowClient;
  namespace: string;
  prefix: string;
  deadlineMs?: number;
}): QueryEmbedder {
  const queue = chem3dQueue(deps.prefix, 'query');
  const deadlineMs = deps.deadlineMs ?? 20_000;
  async function workerAlive(): Promise<boolean> {
    const res = await deps.workflows.workflowService.describeTaskQueue({
      namespace: deps.namespace,
      taskQueue: { name: queue },
      taskQueueType: ACTIVITY_QUEUE,
    });
    const now = Date.now();
    return (res.pollers ?? []).some((p) => {
      const t = p.lastAccessTime?.seconds;
      return t !== undefined && t !== null && now - Number(t) * 1000 < POLLER_FRESH_MS;
    });
  }
  return {
    async embed(smiles, loc = ['query', 'search_input']) {
      if (!(await workerAlive().catch(() => false))) throw unavailable('no 3D worker is running');
      let res: EmbedQueryResult;
      try {
        res = (await deps.workflows.execute(CHEM3D_WORKFLOWS.embedQuery, {
          taskQueue: taskQueue(deps.prefix, 'orchestration'),
          workflowId: `embed-query-${randomUUID()}`,
          args: [{ smiles, queue, deadlineMs, confs: 10, seed: 42 } satisfies EmbedQueryWorkflowInput],
          workflowExecutionTimeout: deadlineMs + 5_000,
        })) as EmbedQueryResult;
      } catch (err) {
        if (err instanceof WorkflowFailedError)
          throw unavailable('the 3D worker did not answer in time', err);
        throw err;
      }
      if (!res.molecule.ok)
        throw validationError(
          loc,
          `cannot embed the query in 3D: ${res.molecule.reason}`,
          'value_error.embedding',
        );
      return moleculeFromBase64(res.molecule);
    },

    async embedShortlist(smiles, { budgetMs, confs }) {
      if (!smiles.length) return { molecules: [], timedOut: false };
      if (budgetMs <= 0) return { molecules: smiles.map(() => null), timedOut: true };
      let res: EmbedShortlistResult;
      try {
        res = (await deps.workflows.execute(CHEM3D_WORKFLOWS.embedShortlist, {
          taskQueue: taskQueue(deps.prefix, 'orchestration'),
          workflowId: `embed-shortlist-${randomUUID()}`,
          args: [
            {
              smiles,
              queue,
              budgetMs,
              confs,
              seed: 42,
              // RDKit's own bound on one molecule's embedding, so no single product eats the budget.
              timeoutSeconds: Math.max(1, Math.min(10, Math.ceil(budgetMs / 1000))),
            } satisfies EmbedShortlistWorkflowInput,
          ],
          // The workflow answers at its budget; this only guards against an orchestration stall.
          workflowExecutionTimeout: budgetMs + 5_000,
        })) as EmbedShortlistResult;
      } catch (err) {
        if (err instanceof WorkflowFailedError)
          throw unavailable('the 3D worker did not embed the shortlist', err);
        throw err;
      }
      return {
        molecules: res.molecules.map((m) =>
          m === null
            ? null
            : m.ok
              ? { ok: true, molecule: moleculeFromBase64(m) }
              : { ok: false, reason: m.reason },
        ),
        timedOut: res.timedOut,
      };
    },
  };
}
