/**
 * The space build's measure of work, for its progress percent and time left. Rows are not an even
 * measure: a ring-core reaction's pairs of cores (ring-bound.ts) cost an RDKit zip each, ~0.74 ms
 * against ~0.24 ms per synthon row parsed (AutoGrow4 space: the Fischer indole reaction's 113,565
 * pairs took 84 s, a quarter of the build's CPU, for 0.5 % of its rows). A row parsed is one unit
 * and a pair of cores PAIR_WORK units. A reaction's pairs are known only once its synthons are
 * parsed, so it is counted first at its most (every pair of synthons, up to MAX_CORE_PAIRS) and
 * lowered once known: the percent may jump forward, never back.
 */
import type { ReactionDraft } from './reactions.ts';
import { connectorBonds } from './zip-valence.ts';
import { MAX_CORE_PAIRS } from './ring-bound.ts';

export const PAIR_WORK = 3;

/**
 * Ring cores are needed wherever the TypeScript graph zip cannot score a product: a ring closed,
 * or some connector written with a bond other than single.
 */
export function needsRingCore(draft: ReactionDraft): boolean {
  return (
    draft.ringForming ||
    draft.slots.some((list) => list.some((l) => connectorBonds(l.smiles).some(([, order]) => order !== 1)))
  );
}

/** The most work a reaction's ring-core step can take, in units (0 when it has none). */
export function pairWorkBound(draft: ReactionDraft): number {
  if (draft.slots.length !== 2 || !needsRingCore(draft)) return 0;
  return PAIR_WORK * Math.min(draft.slots[0].length * draft.slots[1].length, MAX_CORE_PAIRS);
}

/** Work done and expected over a build, as the progress reporter takes it. */
export function createBuildWork(drafts: readonly ReactionDraft[]) {
  const rows = drafts.map((d) => d.slots.flat().length);
  const pairs = drafts.map(pairWorkBound);
  let total = rows.reduce((a, b) => a + b, 0) + pairs.reduce((a, b) => a + b, 0);
  let done = 0;
  return {
    /** Work of reaction `ri`: `parsed` rows read, `pairShare` of its pairs done (of `pairCount`). */
    at(ri: number, parsed: number, pairShare = 0, pairCount?: number) {
      if (pairCount !== undefined && PAIR_WORK * pairCount < pairs[ri]) {
        total -= pairs[ri] - PAIR_WORK * pairCount;
        pairs[ri] = PAIR_WORK * pairCount;
      }
      return { done: done + parsed + pairShare * pairs[ri], total };
    },
    /** Reaction `ri` is done (built or resumed): what its pairs did not take leaves the total. */
    finish(ri: number, pairCount = 0) {
      const used = Math.min(pairs[ri], PAIR_WORK * pairCount);
      total -= pairs[ri] - used;
      pairs[ri] = used;
      done += rows[ri] + used;
      return { done, total };
    },
  };
}
