/**
 * Activities of v2 runs: execute one item (a selection) and record it, append events, record a
 * failed item, cancel open items. Every one is idempotent, so Temporal's retries and a re-executed
 * item after a lost worker change nothing but the attempt count.
 */
import { ApplicationFailure } from '@temporalio/activity';
import { DomainError } from '../platform/errors.ts';
import type { Logger } from '../platform/logger.ts';
import type { ObjectStore } from '../platform/object-store/index.ts';
import type { RunsRepository } from '../store/runs.ts';
import {
  executeSelectionIn,
  itemReferenceError,
  itemSelection,
  parseRunDocument,
  prepareSelection,
  runItemIds,
  selectionMetric,
  METRIC_SCORERS,
  type LibraryRegistry,
  type RunDocument,
  type SelectionPool,
} from '../engine/selection/index.ts';
import type { SpacePool } from '../engine/synthons/space-pool.ts';
import { executeSpaceSelection } from '../engine/synthons/space-selection.ts';
import {
  INVALID_INPUT_FAILURE,
  type ExecuteItemInput,
  type ExecuteItemResult,
  type PurgeRunsResult,
  type RunEventRecord,
} from '../workflows/contracts.ts';

export interface RunActivityDeps {
  log: Logger;
  runs: RunsRepository;
  objects: ObjectStore;
  libraries: LibraryRegistry;
  /** Threads that execute item selections, so activities never block the worker's event loop (absent: in this thread). */
  selectionPool?: SelectionPool;
  /** The synthon spaces items may name (their facts are in `libraries`); absent: none. */
  spaces?: SpacePool;
}

/** Object-key prefix of everything a run stored (deleted with the run when it expires). */
export const runObjectsPrefix = (runId: string) => `runs/${runId}/`;

/** Object key of one item's result document. */
export const runItemResultKey = (runId: string, itemId: string) =>
  `${runObjectsPrefix(runId)}items/${encodeURIComponent(itemId)}.json`;

/** The run activities over the worker's metadata store, object store and libraries. */
export function createRunActivities(deps: RunActivityDeps) {
  const { runs, objects, libraries } = deps;
  const documents = new Map<string, { doc: RunDocument; ids: string[] }>();
  const loadDocument = async (runId: string) => {
    let entry = documents.get(runId);
    if (!entry) {
      const raw = await runs.document(runId);
      if (!raw) throw ApplicationFailure.nonRetryable(`run ${runId} not found`, INVALID_INPUT_FAILURE);
      const doc = parseRunDocument(raw);
      entry = { doc, ids: runItemIds(doc) };
      if (documents.size > 100) documents.clear();
      documents.set(runId, entry);
    }
    return entry;
  };

  return {
    /** Appends events (sequence numbers assigned by the workflow); re-appending is a no-op. */
    async runAppendEvents(input: { runId: string; events: RunEventRecord[] }): Promise<void> {
      await runs.appendEvents(input.runId, input.events);
    },

    /**
     * Executes one item: the item's selection over its library, the result document written to
     * runs/<run>/items/<item>.json (the fields of a v2 search answer, so clients read it as one),
     * the item row updated. Input problems (a reference that does not parse, which admission let
     * through as this item's failure; an unavailable capability) make the item failed without
     * retry; other errors are thrown and retried.
     */
    async runExecuteItem(input: ExecuteItemInput): Promise<ExecuteItemResult> {
      const attempt = await runs.startItem(input.runId, input.itemId);
      const { doc, ids } = await loadDocument(input.runId);
      const index = ids.indexOf(input.itemId);
      if (index < 0)
        throw ApplicationFailure.nonRetryable(
          `item ${input.itemId} is not in run ${input.runId}`,
          INVALID_INPUT_FAILURE,
        );
      try {
        const prepared = await prepareSelection(libraries, itemSelection(doc, index).selection, []);
        const outcome =
          prepared.library.info.kind === 'synthon' && deps.spaces
            ? await executeSpaceSelection(
                deps.spaces,
                prepared.library,
                prepared.selection,
                deps.selectionPool,
              )
            : await executeSelectionIn(deps.selectionPool, prepared.library, prepared.selection);
        const key = runItemResultKey(input.runId, input.itemId);
        const selectionHash = prepared.hash;
        const metric = selectionMetric(prepared.selection);
        await objects.put(
          key,
          JSON.stringify({
            run_id: input.runId,
            item_id: input.itemId,
            input_index: index,
            selection_hash: selectionHash,
            database_id: prepared.library.info.database_id,
            database_release: prepared.library.info.release,
            scorer:
              prepared.selection.strategy.type === 'sample'
                ? 'sample'
                : (METRIC_SCORERS[metric as keyof typeof METRIC_SCORERS] ?? null),
            metric,
            ...outcome,
          }),
          'application/json',
        );
        await runs.finishItem(input.runId, input.itemId, {
          status: 'succeeded',
          resultKey: key,
          result: {
            selection_hash: selectionHash,
            returned: outcome.counts.returned,
            counts: outcome.counts,
          },
        });
        deps.log.debug(
          { run: input.runId, item: input.itemId, attempt, returned: outcome.counts.returned },
          'run item executed',
        );
        return { status: 'succeeded', returned: outcome.counts.returned };
      } catch (err) {
        if (!(err instanceof DomainError)) throw err;
        const error = itemReferenceError(doc, index, err) ?? { code: err.code, message: err.message };
        await runs.finishItem(input.runId, input.itemId, { status: 'failed', error });
        return { status: 'failed', error };
      }
    },

    /** Records an item whose execution failed after every attempt (the workflow's verdict). */
    async runRecordItemFailure(input: {
      runId: string;
      itemId: string;
      error: { code: string; message: string };
    }): Promise<void> {
      await runs.finishItem(input.runId, input.itemId, {
        status: 'failed',
        error: input.error,
      });
    },

    /** Marks every unfinished item cancelled and returns the item counts by status. */
    async runCancelItems(input: { runId: string }) {
      return runs.cancelOpenItems(input.runId);
    },

    /**
     * Deletes runs past their retention and every object they stored; returns how many runs went.
     * Run by the retention schedule (workflows/purge-runs-workflow.ts). A failed object delete
     * leaves an orphan object, never a visible run, so it is logged and not retried.
     */
    async runsPurgeExpired(): Promise<PurgeRunsResult> {
      const ids = await runs.purgeExpired(new Date());
      for (const id of ids) {
        for (const key of await objects.list(runObjectsPrefix(id)))
          await objects
            .delete(key)
            .catch((err) => deps.log.warn({ err, key }, 'could not delete run object'));
      }
      if (ids.length) deps.log.info({ runs: ids.length }, 'purged expired runs');
      return { runs: ids.length };
    },
  };
}

export type RunActivities = ReturnType<typeof createRunActivities>;
