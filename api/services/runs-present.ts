/** How v2 runs, their items and events look on the wire (run/1): one place for the three shapes. */
import type { ItemRow, RunEvent, RunRow } from '../../store/index.ts';

/** The run/1 resource. `base` is the public URL prefix of links ('' for relative links). */
export function presentRun(run: RunRow, base = '') {
  const self = `${base}/api/v2/runs/${run.id}`;
  return {
    object: 'run' as const,
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
export type RunView = ReturnType<typeof presentRun>;

/** The ETag of a run: changes with every event and every update of the row. */
export const runEtag = (run: RunRow) => `"${run.id}-${run.last_event_sequence}-${run.updated_at.getTime()}"`;

/**
 * The `result` of a succeeded item: its stored answer (results, counts, timing_ms, warnings,
 * database_id, database_release, scorer, metric, execution_plan) over the row's summary
 * (selection_hash, returned, counts). The released SDK reads an item's hits as
 * `SearchResult.model_validate(item.result)`, so the hits belong inside `result`; the run's own
 * bookkeeping (run_id, item_id, input_index) is the item's, not the answer's.
 */
export function itemResult(summary: Record<string, unknown> | null, answer: Record<string, unknown>) {
  const { run_id: _run, item_id: _item, input_index: _index, ...search } = answer;
  return { ...summary, ...search };
}

/** An item of GET .../items and .../results; `answer` is a succeeded item's stored result document. */
export const presentItem = (i: ItemRow, answer?: Record<string, unknown>) => ({
  id: i.item_id,
  input_index: i.input_index,
  status: i.status,
  attempt_count: i.attempt_count,
  result: answer ? itemResult(i.result, answer) : i.result,
  error: i.error,
});

/** An event of GET .../events and of the SSE stream. */
export const presentEvent = (runId: string, e: RunEvent) => ({
  sequence: e.sequence,
  type: e.type,
  run_id: runId,
  item_id: e.item_id,
  status: e.status,
  progress: e.progress,
  ...(e.payload ? { payload: e.payload } : {}),
  created_at: e.created_at instanceof Date ? e.created_at.toISOString() : e.created_at,
});
export type EventView = ReturnType<typeof presentEvent>;
