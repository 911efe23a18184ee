import { randomUUID } from 'node:crypto';
import {
  ActivityFailure,
  TimeoutFailure,
  WorkflowFailedError,
  type WorkflowClient,
} from '@temporalio/client';
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
/** Query embeddings kept (≈ 10 conformers × 50 atoms × 12 bytes ≈ 6 KB each: ~6 MB). */
export const QUERY_CACHE_ENTRIES = 1000;
/** A worker seen polling this recently is not asked about again (one RPC saved per request). */
const ALIVE_TTL_MS = 5_000;
/** The query recipe: espsim's 10 ETKDGv3 conformers, fixed seed (chem3d/embed.py). */
const QUERY_CONFS = 10;
const QUERY_SEED = 42;

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
 * What one SMILES embeds to: the molecule, or the reason it cannot be embedded (a 422). `transient`
 * (it did not embed within its time) is not kept: on a less busy machine it may embed.
 */
type Outcome = { molecule: Molecule3d } | { reason: string; transient?: boolean };

/**
 * Whether the workflow failed because the worker took the embedding and did not finish it in time
 * (start-to-close, heartbeat timeout): a 422 for the molecule, not a 503. A task no worker took
 * (schedule-to-start) or any other failure is the worker's unavailability. The worker answers a slow molecule itself (`timedOut`); this catches a worker whose own
 * budget was overrun (e.g. stalled in RDKit beyond it).
 */
function embeddingTimeout(err: WorkflowFailedError): boolean {
  const act = err.cause;
  if (!(act instanceof ActivityFailure) || !(act.cause instanceof TimeoutFailure)) return false;
  const t = act.cause.timeoutType;
  return t === 'START_TO_CLOSE' || t === 'HEARTBEAT';
}

/**
 * Embeds query SMILES on the Python chem3d worker through embedQueryWorkflow, within `deadlineMs`.
 * Fails fast (one RPC) when no chem3d worker polls the query queue.
 *
 * Embedding is deterministic (fixed seed, one SMILES string → the same conformers), so outcomes are
 * kept in an LRU of `cacheEntries` keyed by the exact SMILES string and recipe: a repeated query (the
 * next page, the other 3D type, a consensus call, another quality) skips the ~0.3 CPU-seconds of
 * ETKDG and the workflow round trip and gets bit-identical conformers. The key is the string as sent,
 * not the canonical SMILES: ETKDG's result depends on the atom order, so a canonical key would make a
 * spelling's conformers depend on which spelling came first. Concurrent requests for one key share
 * one embedding. Unembeddable SMILES are kept too; a worker that is down or late is not (503, retried
 * by the next request). Callers must not mutate the returned arrays (they are shared).
 */
export function createQueryEmbedder(deps: {
  workflows: WorkflowClient;
  namespace: string;
  prefix: string;
  deadlineMs?: number;
  /** Seconds the worker may spend embedding (default: the deadline less its pickup quarter, less 1 s). */
  embedBudgetSeconds?: number;
  cacheEntries?: number;
}): QueryEmbedder {
  const queue = chem3dQueue(deps.prefix, 'query');
  const deadlineMs = deps.deadlineMs ?? 20_000;
  const cacheEntries = deps.cacheEntries ?? QUERY_CACHE_ENTRIES;
  const cache = new Map<string, Outcome>();
  const inFlight = new Map<string, Promise<Outcome>>();
  let aliveUntil = 0;
  async function workerAlive(): Promise<boolean> {
    if (Date.now() < aliveUntil) return true;
    const res = await deps.workflows.workflowService.describeTaskQueue({
      namespace: deps.namespace,
      taskQueue: { name: queue },
      taskQueueType: ACTIVITY_QUEUE,
    });
    const now = Date.now();
    const alive = (res.pollers ?? []).some((p) => {
      const t = p.lastAccessTime?.seconds;
      return t !== undefined && t !== null && now - Number(t) * 1000 < POLLER_FRESH_MS;
    });
    if (alive) aliveUntil = now + ALIVE_TTL_MS;
    return alive;
  }
  async function embedOnWorker(smiles: string): Promise<Outcome> {
    if (!(await workerAlive().catch(() => false))) throw unavailable('no 3D worker is running');
    let res: EmbedQueryResult;
    try {
      res = (await deps.workflows.execute(CHEM3D_WORKFLOWS.embedQuery, {
        taskQueue: taskQueue(deps.prefix, 'orchestration'),
        workflowId: `embed-query-${randomUUID()}`,
        args: [
          {
            smiles,
            queue,
            deadlineMs,
            confs: QUERY_CONFS,
            seed: QUERY_SEED,
            ...(deps.embedBudgetSeconds ? { budgetSeconds: deps.embedBudgetSeconds } : {}),
          } satisfies EmbedQueryWorkflowInput,
        ],
        workflowExecutionTimeout: deadlineMs + 5_000,
      })) as EmbedQueryResult;
    } catch (err) {
      // A late answer may have been the worker's stall, not the molecule's: say so, and do not keep it.
      if (err instanceof WorkflowFailedError && embeddingTimeout(err))
        return { reason: 'the 3D embedding did not finish within its time limit', transient: true };
      aliveUntil = 0;
      if (err instanceof WorkflowFailedError) throw unavailable('the 3D worker did not answer in time', err);
      throw err;
    }
    const m = res.molecule;
    return m.ok ? { molecule: moleculeFromBase64(m) } : { reason: m.reason, transient: m.timedOut === true };
  }
  async function outcomeOf(smiles: string): Promise<Outcome> {
    const key = `${QUERY_CONFS}/${QUERY_SEED}/${smiles}`;
    const hit = cache.get(key);
    if (hit) {
      cache.delete(key); // re-inserted last: Map order is the recency order
      cache.set(key, hit);
      return hit;
    }
    let pending = inFlight.get(key);
    if (!pending) {
      pending = embedOnWorker(smiles).finally(() => inFlight.delete(key));
      inFlight.set(key, pending);
    }
    const outcome = await pending;
    if (cacheEntries > 0 && !cache.has(key) && !('transient' in outcome && outcome.transient)) {
      cache.set(key, outcome);
      if (cache.size > cacheEntries) cache.delete(cache.keys().next().value!);
    }
    return outcome;
  }
  return {
    async embed(smiles, loc = ['query', 'search_input']) {
      const outcome = await outcomeOf(smiles);
      if ('reason' in outcome)
        throw validationError(
          loc,
          `cannot embed the query in 3D: ${outcome.reason}`,
          'value_error.embedding',
        );
      return outcome.molecule;
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
