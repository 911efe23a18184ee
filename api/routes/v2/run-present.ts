import type { FastifyRequest } from 'fastify';
import { notFound } from '../../../platform/errors.ts';
import type { ItemRow, RunEvent, RunRow } from '../../../store/runs.ts';
import { accountOf, type V2Deps } from './common.ts';

/** An item of GET .../items. */
export const presentItem = (i: ItemRow) => ({
  id: i.item_id,
  input_index: i.input_index,
  status: i.status,
  attempt_count: i.attempt_count,
  result: i.result,
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

/** The caller's run, or 404 (another tenant's and expired runs are invisible). */
export async function ownRun(deps: V2Deps, request: FastifyRequest, id: string): Promise<RunRow> {
  const run = await deps.runs.get(accountOf(request), id);
  if (!run) throw notFound(`run ${id}`);
  return run;
}
