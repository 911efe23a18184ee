/**
 * The stored answers of succeeded run items (runs/<run>/items/<item>.json, written by the run-item
 * activity) as pages of GET .../items and .../results carry them: every succeeded item's `result`
 * holds its hits, because the released SDK reads them from there.
 */
import { DomainError } from '../../platform/errors.ts';
import type { ObjectStore } from '../../platform/object-store/index.ts';
import type { ItemRow } from '../../store/index.ts';
import { encodeCursor } from '../../store/runs.ts';

/**
 * Most hits one page of items carries (a full page of results: 100 items × 200 hits). An items
 * page may list 1,000 items; one of a 200-hit run would be 200,000 hits read from as many objects,
 * so the page ends early and its next_cursor continues after its last item.
 */
export const ITEM_PAGE_HITS = 20_000;
/** Stored answers read at once for one page. */
const READS_AT_ONCE = 16;

export type Answer = Record<string, unknown>;

/** Reads stored answers: one per row, undefined for rows that did not succeed. */
export function createAnswerReader(objects: ObjectStore) {
  async function read(i: ItemRow): Promise<Answer | undefined> {
    if (i.status !== 'succeeded') return undefined;
    if (!i.result_key) throw new DomainError('internal', `item ${i.item_id} has no result`);
    return JSON.parse(Buffer.from(await objects.getBytes(i.result_key)).toString('utf8')) as Answer;
  }

  /** The answers of `rows`, in order, at most READS_AT_ONCE object reads in flight. */
  async function answers(rows: ItemRow[]): Promise<(Answer | undefined)[]> {
    const out: (Answer | undefined)[] = new Array(rows.length);
    let next = 0;
    const lane = async () => {
      while (next < rows.length) {
        const k = next++;
        out[k] = await read(rows[k]);
      }
    };
    await Promise.all(Array.from({ length: Math.min(READS_AT_ONCE, rows.length) }, lane));
    return out;
  }

  return { answers };
}

/**
 * The leading rows of an items page whose succeeded items hold at most ITEM_PAGE_HITS hits (at
 * least one row), and the page's next_cursor: after the last row kept when rows were cut, else
 * the store's. An item's hit count is its row's `returned`, known without reading its answer.
 */
export function capItemsPage(page: { data: ItemRow[]; next_cursor: string | null }): {
  rows: ItemRow[];
  next_cursor: string | null;
} {
  let hits = 0;
  for (const [k, i] of page.data.entries()) {
    if (i.status !== 'succeeded') continue;
    hits += Number(i.result?.returned ?? 0);
    if (hits > ITEM_PAGE_HITS && k > 0) {
      const rows = page.data.slice(0, k);
      return { rows, next_cursor: encodeCursor(rows[rows.length - 1].input_index) };
    }
  }
  return { rows: page.data, next_cursor: page.next_cursor };
}
