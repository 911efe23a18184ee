import { describe, expect, it } from 'vitest';
import { capItemsPage, ITEM_PAGE_HITS } from '../../../api/services/runs-answers.ts';
import { decodeCursor, isIntCursor, type ItemRow } from '../../../store/runs.ts';

const row = (input_index: number, status: ItemRow['status'], returned = 0): ItemRow => ({
  run_id: 'run_x',
  item_id: `i${input_index}`,
  input_index,
  status,
  attempt_count: 1,
  result_key: status === 'succeeded' ? `runs/run_x/items/i${input_index}.json` : null,
  result: status === 'succeeded' ? { returned } : null,
  error: null,
  completed_seq: input_index + 2,
});

describe('capItemsPage', () => {
  it('keeps a page whose hits fit, with the store cursor', () => {
    const data = [row(0, 'succeeded', 200), row(1, 'failed'), row(2, 'succeeded', 200)];
    expect(capItemsPage({ data, next_cursor: 'abc' })).toEqual({ rows: data, next_cursor: 'abc' });
  });

  it('ends a page before the item that would pass the hit budget, continuing after its last row', () => {
    // 1,000 items of 200 hits: 100 of them are ITEM_PAGE_HITS hits; failed and pending rows are free.
    const data = Array.from({ length: 1000 }, (_, i) =>
      i % 2 ? row(i, i < 500 ? 'failed' : 'pending') : row(i, 'succeeded', 200),
    );
    const page = capItemsPage({ data, next_cursor: null });
    const hits = page.rows.reduce((s, r) => s + Number(r.result?.returned ?? 0), 0);
    expect(hits).toBe(ITEM_PAGE_HITS);
    // Rows 0–199: the 100 succeeded items 0, 2, …, 198 and the free failed rows between and after.
    expect(page.rows).toHaveLength(200);
    expect(page.rows[page.rows.length - 1].input_index).toBe(199);
    expect(decodeCursor(page.next_cursor!, isIntCursor)).toBe(199);
  });

  it('never answers an empty page', () => {
    const page = capItemsPage({
      data: [row(0, 'succeeded', ITEM_PAGE_HITS + 1), row(1, 'failed')],
      next_cursor: null,
    });
    expect(page.rows.map((r) => r.input_index)).toEqual([0, 1]);
  });
});
