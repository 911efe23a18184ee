import { call } from '../http/client.ts';

/** v2 runs as the pages use them: list, create (selection_batch), read, items, results. */
export interface Run {
  id: string;
  kind: string;
  status: string;
  created_at: string;
  updated_at: string;
  last_event_sequence: number;
  progress: {
    pending: number;
    running: number;
    succeeded: number;
    failed: number;
    cancelled: number;
    total: number;
  };
  metadata: Record<string, string>;
}

export interface RunEvent {
  sequence: number;
  type: string;
  item_id: string | null;
  status: string;
  progress: Run['progress'];
  created_at?: string;
}

export interface RunItem {
  id: string;
  input_index: number;
  status: string;
  attempt_count: number;
  error: { code: string; message: string } | null;
}

export interface Hit {
  rank: number;
  product_id: string;
  smiles: string;
  score: number | null;
}

export interface RunResult {
  item_id: string;
  input_index: number;
  results?: Hit[];
}

export const RUN_TERMINAL = ['completed', 'completed_with_errors', 'failed', 'cancelled'];

export const listRuns = () =>
  call<{ data: Run[]; next_cursor: string | null }>('/api/v2/runs', { query: { limit: 50 } });
export const getRun = (id: string) => call<Run>(`/api/v2/runs/${encodeURIComponent(id)}`);
/** Every item of a run (at most 1,000): pages followed, since a page holding many hits ends early. */
export async function runItems(id: string): Promise<{ data: RunItem[] }> {
  const data: RunItem[] = [];
  let cursor: string | null = null;
  do {
    const page: { data: RunItem[]; next_cursor: string | null } = await call(
      `/api/v2/runs/${encodeURIComponent(id)}/items`,
      { query: { limit: 1000, cursor } },
    );
    data.push(...page.data);
    cursor = page.next_cursor;
  } while (cursor);
  return { data };
}
export const runResults = (id: string) =>
  call<{ data: RunResult[] }>(`/api/v2/runs/${encodeURIComponent(id)}/results`, {
    query: { limit: 100, order: 'input' },
  });
export const cancelRun = (id: string) =>
  call<Run>(`/api/v2/runs/${encodeURIComponent(id)}:cancel`, { method: 'POST' });

/**
 * A selection_batch run: one item per query molecule, each the `hits` nearest products by ECFP4
 * Tanimoto in `database`. Lines are "SMILES [name]"; the name becomes the item id.
 */
export function batchRunDocument(lines: string, database: string, hits: number) {
  const queries = lines
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .map((l, i) => {
      const [smiles, name] = l.split(/\s+/, 2);
      return { id: (name ?? `item-${String(i + 1).padStart(4, '0')}`).slice(0, 100), smiles };
    });
  return {
    schema_version: 'run/1',
    kind: 'selection_batch',
    selection_template: {
      schema_version: 'molecule-selection/1',
      database: { database_id: database },
      strategy: { type: 'ranked' },
      objectives: [
        { type: 'similarity', direction: 'maximize', metric_id: 'rdkit.ecfp4_tanimoto', reference_id: 'q' },
      ],
      portfolio: { limit: hits },
    },
    items: queries.map((q) => ({
      id: q.id,
      references: [{ id: 'q', structure: { format: 'smiles', value: q.smiles } }],
    })),
    failure_policy: 'continue',
    metadata: { source: 'web app' },
  };
}

/** Submits with an Idempotency-Key made once per form submission, so a retry never starts two runs. */
export const createRun = (doc: unknown, idempotencyKey: string) =>
  call<Run>('/api/v2/runs', { method: 'POST', body: doc, headers: { 'Idempotency-Key': idempotencyKey } });
