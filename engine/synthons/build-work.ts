/**
 * The space build's measure of work, for its progress percent and time left. Rows are not an even
 * measure: a ring-core reaction's pairs of cores (ring-bound.ts) cost an RDKit zip each, ~0.74 ms
 * against ~0.24 ms per synthon row parsed (AutoGrow4 space: the Fischer indole reaction's 113,565
 * pairs took 84 s, a quarter of the build's CPU, for 0.5 % of its rows). A row parsed is one unit
 * and a pair of cores PAIR_WORK units.
 *
 * A reaction's pairs are known only once its synthons are parsed. Until then it is counted at one
 * pair per synthon (at most one per pair of synthons): over the AutoGrow4 space's 22 ring-core
 * reactions that guesses 126,000 pairs where there are 147,199, while counting every pair of
 * synthons guessed 3.3 million and held the first start's percent at 0 with a 150-minute
 * estimate. A guess can be low for one reaction (the Fischer indole: 6,433 guessed), so the total
 * can rise; the percent shown never goes back (it holds until the work catches up).
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

/** The guessed work of a reaction's ring-core step before its pairs are known (0 when none). */
export function pairWorkGuess(draft: ReactionDraft): number {
  if (draft.slots.length !== 2 || !needsRingCore(draft)) return 0;
  const [a, b] = draft.slots.map((s) => s.length);
  return PAIR_WORK * Math.min(a * b, MAX_CORE_PAIRS, a + b);
}

/** Work done and expected over a build, as the progress reporter takes it. */
export function createBuildWork(drafts: readonly ReactionDraft[]) {
  const rows = drafts.map((d) => d.slots.flat().length);
  const pairs = drafts.map(pairWorkGuess);
  let total = rows.reduce((a, b) => a + b, 0) + pairs.reduce((a, b) => a + b, 0);
  let done = 0;
  let shown = 0;
  const know = (ri: number, units: number): void => {
    total += units - pairs[ri];
    pairs[ri] = units;
  };
  // The share shown only grows: a total raised by a low guess holds it until the work catches up.
  const report = (at: number) => {
    shown = Math.min(1, Math.max(shown, at / Math.max(1, total)));
    return { done: shown * total, total };
  };
  return {
    /** Work of reaction `ri`: `parsed` rows read, `pairShare` of its pairs done (of `pairCount`). */
    at(ri: number, parsed: number, pairShare = 0, pairCount?: number) {
      if (pairCount !== undefined) know(ri, PAIR_WORK * pairCount);
      return report(done + parsed + pairShare * pairs[ri]);
    },
    /** Reaction `ri` is done (built or resumed), with the pairs of cores its step went through. */
    finish(ri: number, pairCount = 0) {
      know(ri, PAIR_WORK * pairCount);
      done += rows[ri] + pairs[ri];
      return report(done);
    },
  };
}
