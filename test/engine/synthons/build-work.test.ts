// The build's work measure: rows plus ring-core pairs weighted by their cost, guessed at one pair
// per synthon until known; the percent shown never goes back and ends at 100 (real synthon files).
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseSynthonText } from '../../../engine/synthons/parse.ts';
import { groupReactions } from '../../../engine/synthons/reactions.ts';
import {
  createBuildWork,
  needsRingCore,
  PAIR_WORK,
  pairWorkGuess,
} from '../../../engine/synthons/build-work.ts';

const SOURCES = new URL('../../../catalogs/spaces/sources/', import.meta.url).pathname;
const drafts = (file: string) =>
  groupReactions(parseSynthonText(readFileSync(join(SOURCES, file), 'utf8')).lines).reactions;

describe('build work', () => {
  it('guesses ring-core pairs only for reactions that need ring cores, one per synthon', () => {
    const [amide] = drafts('amide_space.txt');
    const [dm] = drafts('doebner_miller_space.txt');
    expect(needsRingCore(amide)).toBe(false);
    expect(pairWorkGuess(amide)).toBe(0);
    expect(needsRingCore(dm)).toBe(true);
    const [a, b] = dm.slots.map((s) => s.length);
    expect(pairWorkGuess(dm)).toBe(PAIR_WORK * Math.min(a * b, a + b));
  });

  for (const [what, pairs] of [
    ['fewer', 1],
    ['more', 40],
  ] as const)
    it(`never goes back, with ${what} pairs than guessed, and ends complete`, () => {
      const all = [...drafts('amide_space.txt'), ...drafts('doebner_miller_space.txt')];
      const rows = all.map((d) => d.slots.flat().length);
      const work = createBuildWork(all);
      const seen: number[] = [];
      const pct = (w: { done: number; total: number }) => seen.push(w.done / w.total);
      pct(work.at(0, rows[0]));
      pct(work.finish(0));
      // The ring reaction: parsed, then its pairs known and done in steps.
      pct(work.at(1, rows[1]));
      for (const share of [0, 0.5, 1]) pct(work.at(1, rows[1], share, pairs));
      const end = work.finish(1, pairs);
      pct(end);
      for (let i = 1; i < seen.length; i++) expect(seen[i]).toBeGreaterThanOrEqual(seen[i - 1]);
      expect(end.total).toBe(rows[0] + rows[1] + PAIR_WORK * pairs);
      expect(end.done).toBe(end.total);
    });
});
