/**
 * v2 runs as the HTTP layer needs them: validation of run/1 documents, idempotent creation backed
 * by the metadata store and Temporal's workflow-id uniqueness, cancellation, presentation.
 */
import { randomUUID } from 'node:crypto';
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { DomainError, type FieldIssue } from '../../platform/errors.ts';
import type { ObjectStore } from '../../platform/object-store/index.ts';
import {
  documentHash,
  itemSelection,
  libraryFacts,
  normalizeSelection,
  parseRunDocument,
  RUN_LIMITS,
  runItemIds,
  selectionDatabaseId,
  type LibraryRegistry,
  type NormalizedSelection,
  type RunDocument,
} from '../../engine/selection/index.ts';
import { TERMINAL_RUN_STATUSES, type RunRow, type RunsRepository } from '../../store/runs.ts';
import { taskQueue } from '../../workflows/contracts.ts';
import { RUN_WORKFLOW, type RunWorkflowInput } from '../../workflows/contracts.ts';

/** Runs are kept this long after creation (then GET answers 404 and the purge deletes them). */
export const RUN_RETENTION_DAYS = 7;

export interface RunServiceOptions {
  runs: RunsRepository;
  libraries: LibraryRegistry;
  objects: ObjectStore;
  temporal: Client;
  taskQueuePrefix: string;
  /** Items executed at once per run (default 8). */
  concurrency?: number;
  itemTimeoutSeconds?: number;
  itemAttempts?: number;
}

export interface CheckedRun {
  doc: RunDocument;
  itemIds: string[];
  selections: NormalizedSelection[];
  specificationHash: string;
  work: { items: number; hits_per_item: number; total_hits: number; exact_evaluations: number };
}

/** Moves issues of a template+item selection to the field the caller wrote. */
function relocate(err: unknown, doc: RunDocument, index: number): never {
  if (!(err instanceof DomainError) || !err.issues.length) throw err;
  const issues: FieldIssue[] = err.issues.map((i) => ({
    ...i,
    loc:
      doc.kind === 'selection'
        ? ['body', 'selection', ...i.loc]
        : i.loc[0] === 'references'
          ? ['body', 'items', index, ...i.loc]
          : ['body', 'selection_template', ...i.loc],
  }));
  throw new DomainError(err.code, issues.map((i) => `${pathOf(i.loc)}: ${i.msg}`).join('; '), { issues });
}
const pathOf = (loc: (string | number)[]) =>
  '$' +
  loc
    .slice(1)
    .map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`))
    .join('');

/** Validates a run document and every item's selection; throws 422 / 413 AppErrors. */
export async function checkRunDocument(body: unknown, libraries: LibraryRegistry): Promise<CheckedRun> {
  const doc = parseRunDocument(body);
  const itemIds = runItemIds(doc);
  const selections: NormalizedSelection[] = [];
  for (let i = 0; i < itemIds.length; i++) {
    const { selection } = itemSelection(doc, i);
    try {
      const lib = await libraries.get(selectionDatabaseId(selection, []));
      if (!lib)
        throw new DomainError('validation_error', `unknown database`, {
          issues: [
            {
              loc: ['database', 'database_id'],
              msg: `unknown database; available: ${(await libraries.list()).map((l) => l.info.database_id).join(', ')}`,
              type: 'value_error.database',
            },
          ],
        });
      selections.push(normalizeSelection(selection, libraryFacts(lib), []));
    } catch (err) {
      relocate(err, doc, i);
    }
  }
  const hits = Math.max(...selections.map((s) => s.portfolio.limit));
  const work = {
    items: itemIds.length,
    hits_per_item: hits,
    total_hits: selections.reduce((s, x) => s + x.portfolio.limit, 0),
    exact_evaluations: selections.reduce(
      (s, x) => s + x.portfolio.limit * x.execution.shortlist_multiplier,
      0,
    ),
  };
  const specificationHash = documentHash({
    schema_version: doc.schema_version,
    kind: doc.kind,
    failure_policy: doc.failure_policy,
    metadata: doc.metadata,
    items: itemIds.map((id, i) => ({ id, selection: selections[i] })),
  });
  return { doc, itemIds, selections, specificationHash, work };
}

/** Why a checked run is not admissible (limits), or undefined. */
export function runLimitViolation(run: CheckedRun): string | undefined {
  if (run.work.items > RUN_LIMITS.maxItems)
    return `a run has at most ${RUN_LIMITS.maxItems} items, got ${run.work.items}`;
  if (run.work.hits_per_item > RUN_LIMITS.maxHitsPerItem)
    return `at most ${RUN_LIMITS.maxHitsPerItem} hits per item (portfolio.limit), got ${run.work.hits_per_item}`;
  if (run.work.total_hits > RUN_LIMITS.maxTotalHits)
    return `items × hits must be at most ${RUN_LIMITS.maxTotalHits}, got ${run.work.total_hits}`;
  return undefined;
}

/** Creates runs (idempotently) and cancels them. */
export function createRunService(opts: RunServiceOptions) {
  const startWorkflow = async (run: RunRow, itemIds: string[]) => {
    const input: RunWorkflowInput = {
      runId: run.id,
      itemIds,
      concurrency: opts.concurrency ?? 8,
      itemTaskQueue: taskQueue(opts.taskQueuePrefix, 'scan'),
      itemTimeoutSeconds: opts.itemTimeoutSeconds ?? 300,
      itemAttempts: opts.itemAttempts ?? 3,
    };
    try {
      await opts.temporal.workflow.start(RUN_WORKFLOW, {
        workflowId: run.id,
        taskQueue: taskQueue(opts.taskQueuePrefix, 'orchestration'),
        args: [input],
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
      });
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) return;
      throw new DomainError(
        'unavailable',
        'the run was recorded but could not be started; retry with the same Idempotency-Key',
        { cause: err, retryAfterSeconds: 2 },
      );
    }
  };

  return {
    /**
     * The run of (account, idempotency key): created and started the first time, the same run
     * afterwards (its workflow started again if an earlier attempt could not). A different
     * document under the same key is a 409 idempotency_conflict.
     */
    async create(
      accountId: string,
      idempotencyKey: string,
      body: unknown,
    ): Promise<{ run: RunRow; created: boolean }> {
      const checked = await checkRunDocument(body, opts.libraries);
      const violation = runLimitViolation(checked);
      if (violation) throw new DomainError('payload_too_large', violation);
      const { run, created } = await opts.runs.createOrGet({
        id: `run_${randomUUID().replace(/-/g, '')}`,
        accountId,
        kind: checked.doc.kind,
        document: checked.doc,
        specificationHash: checked.specificationHash,
        metadata: checked.doc.metadata,
        idempotencyKey,
        items: checked.itemIds.map((id, input_index) => ({ id, input_index })),
        retentionSeconds: RUN_RETENTION_DAYS * 86_400,
      });
      if (run.status === 'queued' && run.last_event_sequence === 0) await startWorkflow(run, checked.itemIds);
      return { run, created };
    },

    /** Requests cancellation; a finished run is returned unchanged. */
    async cancel(run: RunRow): Promise<void> {
      if (TERMINAL_RUN_STATUSES.includes(run.status)) return;
      try {
        await opts.temporal.workflow.getHandle(run.id).cancel();
      } catch (err) {
        throw new DomainError('unavailable', 'could not reach the workflow service to cancel the run', {
          cause: err,
          retryAfterSeconds: 2,
        });
      }
    },

    /** Deletes expired runs and their result objects; returns how many were deleted. */
    async purgeExpired(now = new Date()): Promise<number> {
      const ids = await opts.runs.purgeExpired(now);
      for (const id of ids) {
        for (const key of await opts.objects.list(`runs/${id}/`))
          await opts.objects.delete(key).catch(() => {});
      }
      return ids.length;
    },
  };
}

export type RunService = ReturnType<typeof createRunService>;

/** The run/1 resource. `base` is the public URL prefix of links ('' for relative links). */
export function presentRun(run: RunRow, base = '') {
  const self = `${base}/api/v2/runs/${run.id}`;
  return {
    object: 'run',
    id: run.id,
    schema_version: 'run/1',
    kind: run.kind,
    status: run.status,
    created_at: run.created_at.toISOString(),
    updated_at: run.updated_at.toISOString(),
    expires_at: run.expires_at.toISOString(),
    last_event_sequence: run.last_event_sequence,
    progress: run.progress,
    metadata: run.metadata ?? {},
    specification_hash: run.specification_hash,
    links: { self, events: `${self}/events`, items: `${self}/items`, results: `${self}/results` },
    warnings: [] as { code: string; message: string }[],
  };
}
