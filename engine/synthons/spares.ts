/**
 * Spares of a threshold step (similarity.ts `SimilarityOptions.spares`): the tuples its bound cut
 * just below the threshold, the best of them kept for the ladder (similarity-scored.ts
 * scoreSpares).
 */

/** A tuple of a reaction with its bound (similarity.ts TupleCandidate). */
export interface Spare {
  reaction: number;
  synthons: number[];
  bound: number;
}

/** How far below the threshold a cut tuple is kept as a spare, and how many are kept. */
export const SPARE_BELOW = 0.1;
export const SPARE_MAX = 2_000;

/** Adds a spare, keeping the SPARE_MAX of best bound (trimmed in batches, not per tuple). */
export function keepSpare(spares: Spare[], c: Spare): void {
  spares.push(c);
  if (spares.length < 2 * SPARE_MAX) return;
  spares.sort((x, y) => y.bound - x.bound);
  spares.length = SPARE_MAX;
}
