/**
 * The query-independent work of Morgan similarity search over a space, done before its first
 * query: per-column stats of the guaranteed bits (bounds.ts), and for the join walk's reactions
 * the decoded join environments and near bits (join-walk.ts, near-bits.ts). Searches compute each
 * on first use anyway; on the 10^9 space that first use cost the first query ~1.5 s (decoding
 * 489,123 join environments, ~850 ms, most of it). The space thread prepares its spaces after its
 * warm-up, one reaction at a time, letting requests in between (they wait at most a reaction),
 * then runs a warm query and makes the ring-core sides a query would otherwise make on first use.
 */
import { MORGAN_DETAILS } from '../chem/fingerprint.ts';
import type { RDKitModule } from '../chem/rdkit.ts';
import { joinable } from './join-bits.ts';
import { prepareJoinWalk } from './join-walk.ts';
import { statsOf } from './bounds.ts';
import type { OpenSpace } from './space.ts';
import { similarityTopK } from './similarity-topk.ts';
import { makeRingSides } from './ring-sides-ahead.ts';

/**
 * The search run once a space is prepared, so that its walks, bounds and scoring are compiled by
 * V8 (and RDKit's assembly tiered up) on the space's own reactions before a user's first query:
 * warm-up.ts's substructure search on a small space reaches none of them. On the 10^9 space
 * the five benchmark queries, each first in a fresh thread, took 0.31–0.48 s (aspirin 1.74 s)
 * against 0.10–0.31 s (0.83–1.07 s) in a thread that had served other queries
 * (bench/synthons/README.md, "Ring-core cross bound"). A common drug fragment, no user's query.
 */
export const WARM_QUERY = { smiles: 'O=C(Nc1ccccc1)c1ccncc1', k: 100, timeoutMs: 2_000 } as const;

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
  /**
   * Given: then one search of WARM_QUERY, then the sides of every ring-core reaction's tuples
   * (ring-sides-ahead.ts makeRingSides), in slices of RING_SIDES_SLICE_MS (all timed with the rest).
   */
  rd?: RDKitModule,
): Promise<number> {
  let ms = 0;
  for (let r = 0; r < space.reactions.length; r++) {
    await between();
    const t0 = performance.now();
    prepareReaction(space, r);
    ms += performance.now() - t0;
  }
  if (rd) {
    await between();
    const t0 = performance.now();
    const mol = rd.get_mol(WARM_QUERY.smiles);
    try {
      const fp = new Uint8Array(mol!.get_morgan_fp_as_uint8array(MORGAN_DETAILS) as Uint8Array);
      similarityTopK(rd, space, fp, WARM_QUERY.k, { timeoutMs: WARM_QUERY.timeoutMs });
    } finally {
      mol?.delete();
    }
    ms += performance.now() - t0;
    for (const reaction of space.reactions)
      for (let row = 0; row >= 0;) {
        await between();
        const t1 = performance.now();
        row = makeRingSides(rd, reaction, row, RING_SIDES_SLICE_MS);
        ms += performance.now() - t1;
      }
  }
  return ms;
}

/** A request waits at most about this long for the ring sides being made (plus one row). */
export const RING_SIDES_SLICE_MS = 50;
