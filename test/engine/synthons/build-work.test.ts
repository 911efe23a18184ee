// The build's work measure: rows plus ring-core pairs weighted by their cost, counted at their
// most until known, so the percent never goes back and ends at 100 (real synthon files).
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseSynthonText } from '../../../engine/synthons/parse.ts';
import { groupReactions } from '../../../engine/synthons/reactions.ts';
import {
  createBuildWork,
  needsRingCore,
  PAIR_WORK,
  pairWorkBound,
} from '../../../engine/synthons/build-work.ts';

const SOURCES = new URL('../../../catalogs/spaces/sources/', import.meta.url).pathname;
const drafts = (file: string) =>
  groupReactions(parseSynthonText(readFileSync(join(SOURCES, file), 'utf8')).lines).reactions;

describe('build work', () => {
  it('counts ring-core pairs only for reactions that need ring cores, at most one per synthon pair', () => {
    const [amide] = drafts('amide_space.txt');
    const [dm] = drafts('doebner_miller_space.txt');
    expect(needsRingCore(amide)).toBe(false);
    expect(pairWorkBound(amide)).toBe(0);
    expect(needsRingCore(dm)).toBe(true);
    expect(pairWorkBound(dm)).toBe(PAIR_WORK * dm.slots[0].length * dm.slots[1].length);
  });

  it('moves forward only, lowers its total once the pairs are known, and ends complete', () => {
    const all = [...drafts('amide_space.txt'), ...drafts('doebner_miller_space.txt')];
    const rows = all.map((d) => d.slots.flat().length);
    const work = createBuildWork(all);
    const seen: number[] = [];
    const pct = (w: { done: number; total: number }) => seen.push(w.done / w.total);
    pct(work.at(0, rows[0]));
    const first = work.finish(0);
    pct(first);
    // The ring reaction: parsed, then its pairs (fewer than its bound) done in steps.
    pct(work.at(1, rows[1]));
    const pairs = 2;
    for (const share of [0, 0.5, 1]) pct(work.at(1, rows[1], share, pairs));
    const end = work.finish(1, pairs);
    pct(end);
    for (let i = 1; i < seen.length; i++) expect(seen[i]).toBeGreaterThanOrEqual(seen[i - 1]);
    expect(end.total).toBe(rows[0] + rows[1] + PAIR_WORK * pairs);
    expect(end.done).toBe(end.total);
    // Before the pairs were known the ring step weighed its bound: the first reaction a small share.
    expect(first.done / first.total).toBeLessThan(rows[0] / (rows[0] + rows[1]));
  });
});
