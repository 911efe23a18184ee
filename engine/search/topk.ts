/**
 * Bounded top-k selection and merging. Order everywhere: similarity descending, then catalog,
 * shard and row ascending, so results are identical however the scan was split or parallelised.
 */

/** The top rows of one shard (or shard segment): parallel arrays sorted best first. */
export interface ShardTopK {
  rows: Int32Array;
  scores: Float32Array;
}

/** One search result. `similarity` is the f32 score widened to a number. */
export interface Hit {
  catalog: string;
  shard: number;
  row: number;
  similarity: number;
}

/** A min-heap of at most k (score, row) pairs whose root is the worst kept pair. */
export interface TopKHeap {
  readonly k: number;
  readonly size: number;
  /** Offers a row; keeps it if the heap has room or it beats the worst kept row. */
  push(row: number, score: number): void;
  /** The score a row must reach (>=) to possibly enter: -Infinity until k rows are held. */
  floor(): number;
  /** The kept rows, best first (score desc, row asc). */
  finish(): ShardTopK;
}

/** Creates a bounded heap for k >= 0 rows; it never holds or sorts more than k entries. */
export function createTopKHeap(k: number): TopKHeap {
  const scores = new Float32Array(k);
  const rows = new Int32Array(k);
  let size = 0;
  // i is worse than j: lower score, or same score and higher row.
  const worse = (i: number, j: number): boolean =>
    scores[i] < scores[j] || (scores[i] === scores[j] && rows[i] > rows[j]);
  const swap = (i: number, j: number): void => {
    const s = scores[i];
    scores[i] = scores[j];
    scores[j] = s;
    const r = rows[i];
    rows[i] = rows[j];
    rows[j] = r;
  };
  const siftDown = (i: number): void => {
    for (;;) {
      const l = 2 * i + 1;
      if (l >= size) return;
      const m = l + 1 < size && worse(l + 1, l) ? l + 1 : l;
      if (!worse(m, i)) return;
      swap(i, m);
      i = m;
    }
  };
  return {
    k,
    get size() {
      return size;
    },
    push(row, score) {
      if (size < k) {
        let i = size++;
        scores[i] = score;
        rows[i] = row;
        while (i > 0) {
          const p = (i - 1) >> 1;
          if (!worse(i, p)) break;
          swap(i, p);
          i = p;
        }
      } else if (k > 0 && (score > scores[0] || (score === scores[0] && row < rows[0]))) {
        scores[0] = score;
        rows[0] = row;
        siftDown(0);
      }
    },
    floor() {
      return size < k || k === 0 ? (k === 0 ? Infinity : -Infinity) : scores[0];
    },
    finish() {
      const idx = Array.from({ length: size }, (_, i) => i);
      idx.sort((i, j) => scores[j] - scores[i] || rows[i] - rows[j]);
      return { rows: Int32Array.from(idx, (i) => rows[i]), scores: Float32Array.from(idx, (i) => scores[i]) };
    },
  };
}

/** Total order of hits: similarity desc, then catalog, shard, row asc. Negative when a comes first. */
export function compareHits(a: Hit, b: Hit): number {
  if (a.similarity !== b.similarity) return b.similarity - a.similarity;
  if (a.catalog !== b.catalog) return a.catalog < b.catalog ? -1 : 1;
  return a.shard - b.shard || a.row - b.row;
}

/** A part to merge: one shard's (or segment's) sorted top rows, labelled with where they come from. */
export interface TopKPart extends ShardTopK {
  catalog: string;
  shard: number;
}

/**
 * Merges sorted parts into the best k hits (k-way merge over a heap of part cursors: O(k log P),
 * never materialises more than k hits). Parts must each be sorted best first, as scans return them.
 */
export function mergeTopK(parts: TopKPart[], k: number): Hit[] {
  const live = parts.filter((p) => p.rows.length > 0);
  const pos = new Int32Array(live.length);
  const head = (p: number): Hit => ({
    catalog: live[p].catalog,
    shard: live[p].shard,
    row: live[p].rows[pos[p]],
    similarity: live[p].scores[pos[p]],
  });
  const heads = live.map((_, p) => head(p));
  const heap = live.map((_, p) => p);
  const less = (a: number, b: number): boolean => compareHits(heads[a], heads[b]) < 0;
  const down = (i: number): void => {
    for (;;) {
      const l = 2 * i + 1;
      if (l >= heap.length) return;
      const m = l + 1 < heap.length && less(heap[l + 1], heap[l]) ? l + 1 : l;
      if (!less(heap[m], heap[i])) return;
      [heap[i], heap[m]] = [heap[m], heap[i]];
      i = m;
    }
  };
  for (let i = (heap.length >> 1) - 1; i >= 0; i--) down(i);
  const out: Hit[] = [];
  while (out.length < k && heap.length > 0) {
    const p = heap[0];
    out.push(heads[p]);
    if (++pos[p] < live[p].rows.length) heads[p] = head(p);
    else {
      heap[0] = heap[heap.length - 1];
      heap.pop();
    }
    down(0);
  }
  return out;
}

/** Merges two hit lists sorted by compareHits into the best k (linear). */
export function mergeHits(a: Hit[], b: Hit[], k: number): Hit[] {
  const out: Hit[] = [];
  let i = 0;
  let j = 0;
  while (out.length < k && (i < a.length || j < b.length)) {
    if (j >= b.length || (i < a.length && compareHits(a[i], b[j]) <= 0)) out.push(a[i++]);
    else out.push(b[j++]);
  }
  return out;
}
