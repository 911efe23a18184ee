/**
 * The query-independent work of Morgan similarity search over a space, done before its first
 * query: per-column stats of the guaranteed bits (bounds.ts), and for the join walk's reactions
 * the decoded join environments and near bits (join-walk.ts, near-bits.ts). Searches compute each
 * on first use anyway; on the 10^9 space that first use cost the first query ~1.5 s (decoding
 * 489,123 join environments, ~850 ms, most of it). The space thread prepares its spaces after its
 * warm-up, one reaction at a time, letting requests in between (they wait at most a reaction).
 */
import { joinable } from './join-bits.ts';
import { prepareJoinWalk } from './join-walk.ts';
import { statsOf } from './bounds.ts';
import type { OpenSpace } from './space.ts';

/** Prepares one reaction of the space (by index); returns whether its join walk was prepared. */
export function prepareReaction(space: OpenSpace, r: number): boolean {
  const { info, slots } = space.reactions[r];
  for (const s of slots) statsOf(s.guaranteed, s.synthonIds.length);
  return joinable(info) && prepareJoinWalk(slots);
}

/**
 * Prepares every reaction, awaiting `between()` before each (the thread's event loop turn, so a
 * caller's own work goes first); returns the milliseconds spent preparing (waits excluded).
 */
export async function prepareSimilarity(
  space: OpenSpace,
  between: () => Promise<void> = () => new Promise((resolve) => setImmediate(resolve)),
): Promise<number> {
  let ms = 0;
  for (let r = 0; r < space.reactions.length; r++) {
    await between();
    const t0 = performance.now();
    prepareReaction(space, r);
    ms += performance.now() - t0;
  }
  return ms;
}
