// Spares (similarity.ts, similarity-scored.ts scoreSpares): the tuples a step cut just below its
// threshold, scored only while they could raise the k-th best score known, so that the ladder can
// jump to it; the k-th best read off them never exceeds the true one (every product of the
// Doebner-Miller test space, whose ring-closing tuples the cross bound cuts, scored by RDKit).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getRDKit, type RDKitModule } from '../../../engine/chem/rdkit.ts';
import { tupleKey } from '../../../engine/synthons/score-tuple.ts';
import { kthBest, scoreSpares } from '../../../engine/synthons/similarity-scored.ts';
import { similaritySearch, SPARE_BELOW, type TupleCandidate } from '../../../engine/synthons/similarity.ts';
import { ladderTopK, type LadderStep } from '../../../engine/synthons/similarity-ladder.ts';
import { tanimoto } from '../../../engine/chem/fingerprint.ts';
import { assembleProduct } from '../../../engine/synthons/assemble.ts';
import { reactionTuples, tupleSmiles, type OpenSpace } from '../../../engine/synthons/space.ts';
import { builtSpace, morganOf, SPACE_SOURCES } from './support/spaces.ts';
let root: string;
let rd: RDKitModule;
let space: OpenSpace;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'spares-'));
  rd = await getRDKit();
  space = await builtSpace(root, join(SPACE_SOURCES, 'doebner_miller_space.txt'), 'dm');
}, 300_000);
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

// Every product's Tanimoto to the query, by RDKit, best first.
function allScores(query: string): number[] {
  const all: number[] = [];
  space.reactions.forEach((_, r) => {
    for (const t of reactionTuples(space, r)) {
      const p = assembleProduct(rd, tupleSmiles(space, t), true);
      if (p?.fp) all.push(tanimoto(morganOf(rd, query), p.fp));
    }
  });
  return all.sort((x, y) => y - x);
}

describe('spares of a threshold step', () => {
  it('are reported step by step by the ladder, which ends at the true k-th best', () => {
    const query = 'c1ccc2ncccc2c1';
    const k = 4;
    const truth = allScores(query);
    const steps: LadderStep[] = [];
    const res = ladderTopK(rd, space, morganOf(rd, query), k, { onStep: (s) => steps.push(s) });
    expect(res.hits.map((h) => h.similarity)).toEqual(truth.slice(0, k).map((v) => expect.closeTo(v, 9)));
    expect(steps.length).toBeGreaterThan(0);
    // Falling thresholds, the last the answer's, and a k-th best never above the true one.
    for (let n = 1; n < steps.length; n++) expect(steps[n].threshold).toBeLessThan(steps[n - 1].threshold);
    expect(steps.at(-1)!.threshold).toBe(res.threshold);
    for (const s of steps) if (s.kth !== undefined) expect(s.kth).toBeLessThanOrEqual(truth[k - 1] + 1e-9);
    expect(steps.at(-1)!.kth).toBeCloseTo(truth[k - 1], 9);
  });

  it('are the cut tuples within SPARE_BELOW, and score to a k-th best no higher than the true one', () => {
    const query = 'c1ccc2ncccc2c1';
    const k = 4;
    const top = allScores(query).map((v): [string, number] => ['', v]);
    const fp = morganOf(rd, query);
    // A step with fewer than k hits, which keeps what its cross bound cut just below it.
    const t = 0.5;
    const scored = new Map<string, number | null>();
    const spares: TupleCandidate[] = [];
    const res = similaritySearch(rd, space, fp, { threshold: t, maxHits: k, scored, spares });
    expect(res.hits.length).toBeLessThan(k);
    expect(spares.length).toBeGreaterThan(0);
    for (const s of spares) {
      expect(s.bound).toBeLessThan(t);
      expect(s.bound).toBeGreaterThanOrEqual(t - SPARE_BELOW);
    }
    scoreSpares(rd, space, fp, spares, scored, k, Infinity);
    const kth = kthBest(scored, k);
    expect(kth).toBeDefined();
    expect(kth!).toBeLessThanOrEqual(top[k - 1][1] + 1e-6);
    // Each score is at most its tuple's bound, and every spare left unscored could not have
    // raised the k-th best.
    for (const s of spares) {
      const v = scored.get(tupleKey(s));
      if (v === undefined) expect(s.bound).toBeLessThanOrEqual(kth!);
      else if (v !== null) expect(v).toBeLessThanOrEqual(s.bound + 1e-9);
    }
  });
});
