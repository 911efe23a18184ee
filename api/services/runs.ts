/**
 * v2 runs as the routes see them: admission of run/1 documents (engine/selection/run-check.ts),
 * idempotent creation backed by the metadata store and Temporal's workflow-id uniqueness,
 * cancellation, and the caller's views of runs, items, results and events. Another tenant's runs
 * and expired runs are a 404 everywhere. Retention is the worker's purge schedule, not this service.
 */
import { randomUUID } from 'node:crypto';
import { WorkflowExecutionAlreadyStartedError, type WorkflowClient } from '@temporalio/client';
import { DomainError, jsonPath, notFound, validationError } from '../../platform/errors.ts';
import type { ObjectStore } from '../../platform/object-store/index.ts';
import {
  checkRunDocument,
  runCapabilityIssue,
  runLimitViolation,
  runPriceGap,
  type LibraryRegistry,
  type RunItemError,
  type RunWork,
} from '../../engine/selection/index.ts';
import type { ItemStatus, RunRow, RunStatus, RunsRepository } from '../../store/index.ts';
import { INT32_MAX, RUN_ID_PATTERN, TERMINAL_RUN_STATUSES } from '../../store/runs.ts';

/** The closed status sets, for the routes' query schemas. */
export { ITEM_STATUSES, RUN_STATUSES } from '../../store/runs.ts';
import { RUN_WORKFLOW, taskQueue, type RunWorkflowInput } from '../../workflows/contracts.ts';
import {
  presentEvent,
  presentItem,
  presentRun,
  runEtag,
  type EventView,
  type RunView,
} from './runs-present.ts';
import { capItemsPage, createAnswerReader } from './runs-answers.ts';

/** Runs are kept this long after creation (then they answer 404 and the purge schedule deletes them). */
export const RUN_RETENTION_DAYS = 7;
/** Events one read of the event stream returns at most. */
const STREAM_BATCH = 500;

export interface RunsServiceDeps {
  runs: RunsRepository;
  libraries: LibraryRegistry;
  objects: ObjectStore;
  workflows: WorkflowClient;
  taskQueuePrefix: string;
  /** Prefix of links in run resources ('' gives relative links). */
  publicUrl?: string;
  /** Items executed at once per run (default 8). */
  concurrency?: number;
  itemTimeoutSeconds?: number;
  itemAttempts?: number;
}

export interface RunEstimate {
  admissible: boolean;
  reason?: string;
  execution_tier: 'durable';
  specification_hash: string;
  work: RunWork;
  /** Items whose references do not parse: admitted, they end failed with this error. */
  item_errors: { id: string; error: RunItemError }[];
}

export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

/** One read of a run's event stream: the events after the cursor, and whether the stream is over. */
export interface StreamRead {
  events: EventView[];
  /** The run reached a terminal event and every event up to it was read. */
  done: boolean;
  /** More events are waiting (read again at once). */
  more: boolean;
}

export function createRunsService(deps: RunsServiceDeps) {
  const base = deps.publicUrl ?? '';
  const isTerminal = (status: string) => TERMINAL_RUN_STATUSES.includes(status as RunStatus);
  const { answers } = createAnswerReader(deps.objects);

  /** The caller's run, or 404 (another tenant's and expired runs are invisible). */
  async function own(accountId: string, id: string): Promise<RunRow> {
    // An id this service never issues (a NUL byte, a path) is no run, answered before the database sees it.
    if (!RUN_ID_PATTERN.test(id)) throw notFound(`run ${JSON.stringify(id.slice(0, 100))}`);
    const run = await deps.runs.get(accountId, id);
    if (!run) throw notFound(`run ${id}`);
    return run;
  }

  async function startWorkflow(run: RunRow, itemIds: string[]): Promise<void> {
    const input: RunWorkflowInput = {
      runId: run.id,
      itemIds,
      concurrency: deps.concurrency ?? 8,
      itemTaskQueue: taskQueue(deps.taskQueuePrefix, 'scan'),
      itemTimeoutSeconds: deps.itemTimeoutSeconds ?? 300,
      itemAttempts: deps.itemAttempts ?? 3,
    };
    try {
      await deps.workflows.start(RUN_WORKFLOW, {
        workflowId: run.id,
        taskQueue: taskQueue(deps.taskQueuePrefix, 'orchestration'),
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
  }

  return {
    /** Whether a run document is admissible, and its work (422 when it is invalid). */
    async estimate(body: unknown): Promise<RunEstimate> {
      const checked = await checkRunDocument(body, deps.libraries);
      const gap = runCapabilityIssue(checked);
      const violation = gap ? `${jsonPath(gap.loc)}: ${gap.msg}` : runLimitViolation(checked);
      return {
        admissible: !violation,
        ...(violation ? { reason: violation } : {}),
        execution_tier: 'durable',
        specification_hash: checked.specificationHash,
        work: checked.work,
        item_errors: checked.failing,
      };
    },

    /**
     * The run of (account, idempotency key): created and started the first time, the same run
     * afterwards (its workflow started again if an earlier attempt could not). A different
     * document under the same key is a 409 idempotency_conflict; a missing key a 422.
     */
    async create(
      accountId: string,
      idempotencyKey: string | undefined,
      body: unknown,
    ): Promise<{ run: RunView; created: boolean; location: string }> {
      if (typeof idempotencyKey !== 'string' || !/^[\x21-\x7e]{1,255}$/.test(idempotencyKey))
        throw validationError(
          ['header', 'Idempotency-Key'],
          'the Idempotency-Key header is required (1 to 255 visible ASCII characters)',
          'value_error.missing',
        );
      const checked = await checkRunDocument(body, deps.libraries);
      // A run its items cannot execute (a 3D objective) is refused, not admitted to fail every item.
      const gap = runCapabilityIssue(checked);
      if (gap)
        throw new DomainError('capability_unavailable', `${jsonPath(gap.loc)}: ${gap.msg}`, {
          issues: [gap],
        });
      const priceGap = await runPriceGap(checked, deps.libraries);
      if (priceGap) throw new DomainError('capability_unavailable', priceGap);
      const violation = runLimitViolation(checked);
      if (violation) throw new DomainError('payload_too_large', violation);
      const { run, created } = await deps.runs.createOrGet({
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
      return { run: presentRun(run, base), created, location: `${base}/api/v2/runs/${run.id}` };
    },

    /** The caller's runs, newest first. */
    async list(
      accountId: string,
      q: { cursor?: string; limit: number; status?: RunStatus },
    ): Promise<Page<RunView>> {
      const page = await deps.runs.list(accountId, q);
      return { data: page.data.map((r) => presentRun(r, base)), next_cursor: page.next_cursor };
    },

    /** A run and its ETag. */
    async get(accountId: string, id: string): Promise<{ run: RunView; etag: string }> {
      const run = await own(accountId, id);
      return { run: presentRun(run, base), etag: runEtag(run) };
    },

    /** Requests cancellation; `accepted` is false for a finished run, returned unchanged. */
    async cancel(accountId: string, id: string): Promise<{ run: RunView; accepted: boolean }> {
      const run = await own(accountId, id);
      if (isTerminal(run.status)) return { run: presentRun(run, base), accepted: false };
      try {
        await deps.workflows.getHandle(run.id).cancel();
      } catch (err) {
        throw new DomainError('unavailable', 'could not reach the workflow service to cancel the run', {
          cause: err,
          retryAfterSeconds: 2,
        });
      }
      return { run: presentRun(run, base), accepted: true };
    },

    /**
     * Items of a run in input order, a succeeded item's `result` with its hits; a page ends early
     * (next_cursor set) rather than carry more than ITEM_PAGE_HITS hits.
     */
    async items(accountId: string, id: string, q: { cursor?: string; limit: number; status?: ItemStatus }) {
      const run = await own(accountId, id);
      const { rows, next_cursor } = capItemsPage(await deps.runs.items(run.id, q));
      const found = await answers(rows);
      return { data: rows.map((i, k) => presentItem(i, found[k])), next_cursor };
    },

    /** Finished items with the result documents of succeeded ones, by completion or input order. */
    async results(
      accountId: string,
      id: string,
      q: { cursor?: string; limit: number; order: 'completion' | 'input' },
    ): Promise<Page<Record<string, unknown>>> {
      const run = await own(accountId, id);
      const page = await deps.runs.results(run.id, q);
      const found = await answers(page.data);
      // Every finished item (clients read failures from the results as well as from the items);
      // a succeeded one's answer is in its `result` (the SDK reads it there) and, as before, also
      // spread beside the item for clients that read `results` from the top.
      const data = page.data.map((i, k) => ({
        ...found[k],
        ...presentItem(i, found[k]),
        item_id: i.item_id,
        completion_sequence: i.completed_seq,
      }));
      return { data, next_cursor: page.next_cursor };
    },

    /** Events after a sequence (`cursor`, the previous page's next_cursor, means the same as `after`). */
    async events(accountId: string, id: string, q: { after: number; cursor?: string; limit: number }) {
      const cursor = q.cursor === undefined ? 0 : Number(q.cursor);
      if (cursor > INT32_MAX)
        throw validationError(['query', 'cursor'], `must be at most ${INT32_MAX}`, 'value_error.maximum');
      const run = await own(accountId, id);
      const after = Math.max(q.after, cursor);
      const events = await deps.runs.events(run.id, after, q.limit);
      const last = events.length ? events[events.length - 1].sequence : 0;
      // The run row is read before the events, so a page never claims less than it serves; the
      // caller's `after` is no event, so it never raises the claim.
      return {
        data: events.map((e) => presentEvent(run.id, e)),
        next_cursor: events.length === q.limit ? String(last) : null,
        last_event_sequence: Math.max(run.last_event_sequence, last),
        status: run.status,
      };
    },

    /**
     * Opens the caller's event stream of a run: resumes after `lastEventId` (the SSE header) or
     * else `after`. Returns the run id, the starting sequence and a reader the transport polls.
     */
    async openEventStream(
      accountId: string,
      id: string,
      from: { lastEventId?: string; after?: number },
    ): Promise<{ runId: string; after: number; read(after: number): Promise<StreamRead> }> {
      const run = await own(accountId, id);
      let after = from.after ?? 0;
      const header = from.lastEventId?.trim();
      if (header) {
        if (!/^\d{1,10}$/.test(header) || Number(header) > INT32_MAX)
          throw validationError(
            ['header', 'Last-Event-ID'],
            `must be an event sequence number (0 to ${INT32_MAX})`,
          );
        after = Number(header);
      }
      return {
        runId: run.id,
        after,
        async read(cursor) {
          const events = await deps.runs.events(run.id, cursor, STREAM_BATCH);
          const terminal = events.some((e) => e.type.startsWith('run.') && isTerminal(String(e.status)));
          if (terminal || events.length)
            return {
              events: events.map((e) => presentEvent(run.id, e)),
              done: terminal,
              more: !terminal && events.length === STREAM_BATCH,
            };
          const now = await deps.runs.get(null, run.id);
          const done = !now || (isTerminal(now.status) && now.last_event_sequence <= cursor);
          return { events: [], done, more: false };
        },
      };
    },
  };
}

export type RunsService = ReturnType<typeof createRunsService>;
