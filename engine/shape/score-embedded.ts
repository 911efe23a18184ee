/**
 * Exact 3D scores of molecules embedded elsewhere (the chem3d worker) against one query, and their
 * ranking by one metric: the shared core of the 3D synthon job (activities/synthon-jobs-3d.ts) and
 * of v2 `search_cheese` with scorer shape or esp on synthon spaces, so both rank a shortlist the
 * same way. A molecule without conformers (null: the worker could not embed it) keeps a null score
 * and is never ranked.
 */
import type { ConformerSet } from './conformers.ts';
import type { ShapePool, ShapeRunOptions } from './pool.ts';
import type { ShapeMetric } from './score.ts';

/** A molecule's exact scores (both at its best shape alignment), or null when it was not scored. */
export type Score3d = { shape: number; esp: number } | null;

/** Per molecule, in input order: its scores against `query` on the pool's threads. */
export async function scoreEmbedded(
  pool: ShapePool,
  query: ConformerSet,
  molecules: readonly (ConformerSet | null)[],
  metric: ShapeMetric,
  ro?: ShapeRunOptions,
): Promise<Score3d[]> {
  const at: number[] = [];
  const sets: ConformerSet[] = [];
  molecules.forEach((m, i) => {
    if (m) {
      at.push(i);
      sets.push(m);
    }
  });
  const out: Score3d[] = molecules.map(() => null);
  if (!sets.length) return out;
  const hits = await pool.scoreShortlist(query, sets, { metric, k: sets.length }, ro);
  for (const h of hits) out[at[h.index]] = { shape: h.shape, esp: h.esp };
  return out;
}

export interface Ranked3d<T> {
  item: T;
  /** The item's index in the input (the shortlist's order, e.g. the Morgan proposal's rank). */
  index: number;
  score: { shape: number; esp: number };
}

/**
 * The best `k` scored items by `metric`, best first; ties keep the input order (the proposal's
 * rank), so the result is deterministic. Unscored items are left out.
 */
export function rankBy3d<T>(
  items: readonly T[],
  scores: readonly Score3d[],
  metric: ShapeMetric,
  k: number,
): Ranked3d<T>[] {
  const scored: Ranked3d<T>[] = [];
  items.forEach((item, index) => {
    const score = scores[index];
    if (score) scored.push({ item, index, score });
  });
  scored.sort((a, b) => b.score[metric] - a.score[metric] || a.index - b.index);
  return scored.slice(0, k);
}
