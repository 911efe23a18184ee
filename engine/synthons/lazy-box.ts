/**
 * Candidate boxes of the substructure search, screened only as far as the walk reaches.
 *
 * A box is one list of passing synthons per slot, and its tuples are walked last slot fastest. A
 * search that stops at `maxHits` often needs a handful of the first slot's synthons and the
 * first few hundred of the last, yet screening every synthon of every slot up front cost most of
 * such a search on a large space (13,110 fragment matches for the first 100 `C(=O)N` hits of the
 * 10^9 space). Here a slot's list grows only when the walk asks for its next element, in synthon
 * order, so the tuples and their order are those of the whole lists: the same hits, found sooner.
 */

/** The synthons of one slot that pass a test, found on demand in index order. */
export interface LazyList {
  /** Whether the list has a k-th element (screening further synthons if needed). */
  has(k: number): boolean;
  at(k: number): number;
  /** Synthons screened so far, and how many of them failed. */
  readonly scanned: number;
  readonly failed: number;
  /** All `n` synthons screened: the list is complete. */
  readonly done: boolean;
  readonly n: number;
}

export function lazyList(n: number, passes: (i: number) => boolean): LazyList {
  const items: number[] = [];
  let next = 0;
  return {
    n,
    has(k) {
      // `next` moves only once the test answered: a test that throws (a deadline) leaves the
      // synthon unscreened, not counted as failed.
      while (items.length <= k && next < n) {
        const ok = passes(next);
        if (ok) items.push(next);
        next++;
      }
      return k < items.length;
    },
    at: (k) => items[k],
    get scanned() {
      return next;
    },
    get failed() {
      return next - items.length;
    },
    get done() {
      return next === n;
    },
  };
}

/** Every tuple of a box, last slot fastest; a slot's list is screened as the walk reaches it. */
export function* lazyTuples(box: LazyList[]): Generator<number[]> {
  if (!box.every((l) => l.has(0))) return;
  const idx = box.map(() => 0);
  for (;;) {
    yield idx.map((k, s) => box[s].at(k));
    let s = box.length - 1;
    while (s >= 0 && !box[s].has(++idx[s])) idx[s--] = 0;
    if (s < 0) return;
  }
}

/**
 * Products of a reaction no box can hold, as far as the screens have gone: a tuple with a synthon
 * screened out of its slot's list is outside that box. The sum over boxes overcounts their union,
 * so this is a lower bound, and it is exact for one box whose lists are complete.
 */
export function excludedAtLeast(products: number, boxes: LazyList[][]): number {
  const inside = boxes.reduce((n, box) => n + box.reduce((p, l) => p * (l.n - l.failed), 1), 0);
  return Math.max(0, products - inside);
}
