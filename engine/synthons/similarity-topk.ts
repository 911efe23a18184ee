/**
 * The best k products of a space by Morgan Tanimoto (/molsearch, v2 search and search_cheese,
 * synthon jobs): exact when the budget allows, the closest products it could find when not.
 *
 * Without a budget, or when every reaction has a bound tight enough to walk (join environments,
 * or the ring-core bound a format-5 build stores for ring-closing and double-bond joins), this is
 * the exact ladder of similarity-ladder.ts. Under a budget with weak-bound reactions (spaces built
 * before format 5, three or more slots, too many pairs of cores: their bound stays near 1 for
 * small synthons, so the ladder alone spent a 20 s budget on tuples in an order that said little
 * about their products; user trial on the 10^9 space), three stages share one map of exact scores:
 *
 * 1. Estimate (until ESTIMATE_SHARE of the budget): the weak reactions' tuples most likely to be
 *    close (similarity-estimate.ts), scored exactly, best estimate first.
 * 2. The exact ladder over the join-environment reactions (until STRONG_SHARE), which ends as
 *    soon as k scores at or above a completed step's threshold are known, stage 1's included.
 * 3. An exact search over the weak reactions at the k-th best score known (the rest); when stage 2
 *    ran out of time, more of stage 1's tuples instead.
 * When 2 and 3 complete the answer is exact: a true top-k product of a join reaction scores at or
 * above 2's last threshold, one of a weak reaction at or above 3's (each at most the true k-th
 * best). Otherwise it is the k best products scored, marked `timedOut` (not proven the best).
 */
import type { RDKitModule } from '../chem/rdkit.ts';
import { FP_BYTES } from '../chem/fingerprint.ts';
import { hasStrongBound, scoreTuple, tupleKey } from './score-tuple.ts';
import { searchableReactions, similaritySearch, type SimilarityResult } from './similarity.ts';
import { estimateCandidates } from './similarity-estimate.ts';
import { ladderTopK, type TopKOptions, type TopKResult } from './similarity-ladder.ts';
import { bestScored, kthBest, overall, validCount } from './similarity-scored.ts';
import type { OpenSpace } from './space.ts';

export { RESERVE_FRACTION, TOPK_THRESHOLDS, type TopKOptions, type TopKResult } from './similarity-ladder.ts';

/** Share of the budget for scoring the weak reactions' best-estimated tuples (stage 1). */
export const ESTIMATE_SHARE = 0.15;
/** Stages 1 and 2 end by this share of the budget; stage 3 has the rest. */
export const STRONG_SHARE = 0.7;
const GRACE_SHARE = 0.1;
const GRACE_MIN_MS = 1_000;

export function similarityTopK(
  rd: RDKitModule,
  space: OpenSpace,
  queryFp: Uint8Array,
  k: number,
  opts: TopKOptions = {},
): TopKResult {
  const searched = searchableReactions(space, opts.reactions);
  const weak = searched.filter((r) => !hasStrongBound(space.reactions[r]));
  if (opts.timeoutMs === undefined || weak.length === 0 || k <= 0)
    return ladderTopK(rd, space, queryFp, k, opts);
  const start = performance.now();
  const budget = opts.timeoutMs;
  const left = (share: number): number => Math.max(0, start + budget * share - performance.now());
  const floor = opts.floor ?? 0;
  const idsOf = (rs: number[]): string[] => rs.map((r) => space.reactions[r].info.id);
  // Shared with the caller when given (distinctTopK's rounds), as the ladder does.
  const scored = opts.scored ?? new Map<string, number | null>();
  const fpBuf = new Uint8Array(FP_BYTES);

  // 1. The weak reactions' most promising tuples, by estimate.
  // Three tuples per millisecond of budget (ring cores score one in 0.1–0.2 ms, ring-zip.ts), so
  // a job's longer budget scores more of them; at least 50 per wanted product. More of them
  // find closer products: at one per millisecond (an RDKit assembly each, before ring cores) the
  // 20 s top 100 of the 10^9 space had 100th scores 0.346, 0.585, 0.480, 0.410, 0.583 in 7–9 s,
  // at three 0.389, 0.589, 0.480, 0.413, 0.612 in 13 s (bench/synthons/README.md, "Ring cores").
  const limit = Math.min(1_000_000, Math.max(20_000, 50 * k, Math.floor(3 * budget)));
  const products = opts.products ?? new Map<string, string | null>();
  const proposed = estimateCandidates(space, queryFp, weak, limit, floor);
  let proposal = performance.now() - start;
  let next = 0;
  const t1 = performance.now();
  while (next < proposed.length && left(ESTIMATE_SHARE) > 0)
    scoreTuple(rd, space, queryFp, proposed[next++], fpBuf, scored);
  // What scoring one of these tuples costs here: microseconds from the graph zip of an acyclic
  // join, 0.1–0.2 ms from ring cores, about a millisecond from RDKit's assembly of a new pair.
  const perTuple = next > 0 ? Math.max(0.005, (performance.now() - t1) / next) : 1;

  // 2. The exact ladder over the join-environment reactions.
  const strong = searched.filter((r) => hasStrongBound(space.reactions[r]));
  let exact = true;
  let screened = proposed.length;
  if (strong.length > 0) {
    const r2 = ladderTopK(rd, space, queryFp, k, {
      ...opts,
      reactions: idsOf(strong),
      timeoutMs: left(STRONG_SHARE),
      scored,
      products,
    });
    exact = !r2.timedOut;
    screened += r2.counts.screened;
    proposal += r2.timingMs.proposal;
  }

  // 3. The weak reactions, exactly, at the k-th best score known. When stage 2 could not finish,
  // nothing can be proven any more, and the rest of the budget scores more of stage 1's tuples,
  // which hold far more close products than the bound walk's (its order is nearly arbitrary).
  const threshold = Math.max(floor, kthBest(scored, k) ?? floor);
  // The walk may propose no more than could be scored in the time left at stage 1's cost per
  // tuple (those stage 1 scored cost nothing again); a walk cut short scores nothing.
  if (exact) {
    const ms = left(1);
    const r3: SimilarityResult = similaritySearch(rd, space, queryFp, {
      threshold,
      maxHits: k,
      timeoutMs: ms,
      maxCandidates: Math.max(1_000, Math.floor(ms / perTuple) + scored.size),
      reactions: idsOf(weak),
      scored,
      products,
      abandonIfCut: true,
    });
    exact = !r3.timedOut;
    screened += r3.counts.screened;
    proposal += r3.timingMs.proposal;
  }
  if (!exact)
    while (next < proposed.length && left(1) > 0)
      scoreTuple(rd, space, queryFp, proposed[next++], fpBuf, scored);

  // Never empty when it could answer: past the deadline, scoring goes on while fewer than k
  // products are held, for at most GRACE_SHARE of the budget (at least GRACE_MIN_MS).
  const grace = start + budget + Math.max(budget * GRACE_SHARE, GRACE_MIN_MS);
  let held = validCount(scored);
  while (held < k && next < proposed.length && performance.now() < grace) {
    const c = proposed[next++];
    if (!scored.has(tupleKey(c)) && scoreTuple(rd, space, queryFp, c, fpBuf, scored)) held++;
  }
  const late = { invalid: 0 };
  // Only products at or above the floor (a job's similarity threshold), as the ladder answers.
  const hits = bestScored(rd, space, scored, k, late, exact, products).filter((h) => h.similarity >= floor);
  const unscored = proposed.slice(next).filter((c) => !scored.has(tupleKey(c)));
  const counts = overall(
    { screened, candidates: 0, assembled: 0, invalid: 0, aboveThreshold: 0 },
    scored,
    unscored,
  );
  counts.assembled -= late.invalid;
  counts.invalid += late.invalid;
  for (const v of scored.values()) if (v !== null && v >= threshold) counts.aboveThreshold++;
  return {
    hits,
    counts,
    timedOut: !exact,
    timingMs: { proposal, assembly: performance.now() - start - proposal },
    threshold,
    scoredProducts: validCount(scored),
  };
}
