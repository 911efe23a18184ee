/**
 * The best k products of a space by Morgan Tanimoto from its exact bound alone (similarityTopK,
 * similarity-topk.ts, puts an estimate-first stage before it where the bound is weak), exact when
 * the budget allows and never empty when it does not (the user-trial defect: aspirin on the 10^9
 * space answered 0 neighbours after its 20 s budget, because each threshold step kept only the
 * hits above its own threshold).
 *
 * - Exact searches (similarity.ts) at falling thresholds until one holds k products. Every tuple
 *   any step scores goes into one map, which is also the running top-k across steps and reactions.
 * - After a completed step with fewer than k hits, the next threshold is the higher of the next
 *   ladder step and the k-th best score already found: a search at that score finds every product
 *   at least as good, so it is exact and admits fewer candidates than the ladder alone.
 * - The last RESERVE_FRACTION of the budget is kept back: when the steps run out of time, it
 *   scores the candidates they proposed but did not score (join-bits ones first, then the rest,
 *   each best bound first), and the k best products
 *   scored at all are returned, marked `timedOut` (not proven the best; those at or above
 *   `provenAbove` are).
 */
import type { RDKitModule } from '../chem/rdkit.ts';
import { FP_BYTES } from '../chem/fingerprint.ts';
import { hasJoinEnvs, scoreTuple } from './score-tuple.ts';
import { similaritySearch, type SimilarityResult, type TupleCandidate } from './similarity.ts';
import type { SlotTerms } from './bounds.ts';
import { bestScored, kthBest, overall, scoreSpares, validCount } from './similarity-scored.ts';
import type { OpenSpace } from './space.ts';

/**
 * Thresholds tried in turn by `similarityTopK` until k products are found. The last, 0, admits
 * every product, so a query dissimilar to the whole space still gets its k best. 0.62: on the
 * 10^9 space the five benchmark queries' 100th scores lie between 0.58 and 0.67, and a walk at
 * 0.55 cost `COCC(=O)OCc1ncc[nH]1` (0.667) 0.8 s where one at 0.62 ends in 0.57 s; the others
 * came out even or faster (bench/synthons/README.md, "Near bits, packed environments…"). 0.5:
 * walks cost more the lower they go, and caffeine's 100th score (0.477) lay between 0.55 and
 * 0.45, so it walked at 0.45 (3.6 s of a 5.3 s query); with a step at 0.5, then at its k-th
 * best score, 3.4 s (bench/synthons/README.md, "Ring-core cross bound").
 */
export const TOPK_THRESHOLDS = [0.7, 0.62, 0.55, 0.5, 0.45, 0.35, 0.25, 0.15, 0.05, 0] as const;

/** Share of the time budget kept back for scoring proposed but unscored candidates. */
export const RESERVE_FRACTION = 0.25;

/**
 * Past the deadline, scoring goes on only while fewer than k products are held, and for at most
 * this share of the budget (at least GRACE_MIN_MS): a budget too small for the walk still
 * answers with products when it proposed any.
 */
const GRACE_FRACTION = 0.1;
const GRACE_MIN_MS = 1_000;

export interface TopKOptions {
  timeoutMs?: number;
  maxCandidates?: number;
  /** Lowest threshold tried (default 0: all products). */
  floor?: number;
  /** Only these reactions (by id). */
  reactions?: readonly string[];
  /**
   * Scores already known for this query (similarityTopK's estimate stage), shared and added to:
   * the first step starts at their k-th best when that is above the first threshold, and a
   * completed step ends the ladder once k scores at or above its threshold are known.
   */
  scored?: Map<string, number | null>;
  /** Per reaction, this query's slot terms (filled and reused: distinctTopK's rounds share them). */
  terms?: Map<number, SlotTerms[]>;
  /** Hits' SMILES by tuple key, assembled once across steps and rounds (productSmiles). */
  products?: Map<string, string | null>;
  /** Called after each completed step (bench/synthons/ladder-steps.ts reports them). */
  onStep?: (step: LadderStep) => void;
}

/** One threshold step of the ladder, as it ended. */
export interface LadderStep {
  threshold: number;
  ms: number;
  result: SimilarityResult;
  /** The k-th best score known after the step and its spares, when k are known. */
  kth: number | undefined;
}

export interface TopKResult extends SimilarityResult {
  /** Threshold of the last search run (the answer's when it completed). */
  threshold: number;
  /**
   * When `timedOut`: every product at or above this Tanimoto was scored, so hits at or above it
   * are the true best; undefined when no step completed.
   */
  provenAbove?: number;
  /** Tuples scored exactly over all steps and the reserve (valid products). */
  scoredProducts: number;
}

export function ladderTopK(
  rd: RDKitModule,
  space: OpenSpace,
  queryFp: Uint8Array,
  k: number,
  opts: TopKOptions = {},
): TopKResult {
  const start = performance.now();
  const budget = opts.timeoutMs;
  const stepsUntil = budget === undefined ? Infinity : start + budget * (1 - RESERVE_FRACTION);
  const floor = opts.floor ?? 0;
  const ladder = [...TOPK_THRESHOLDS.filter((t) => t > floor), floor];
  const scored = opts.scored ?? new Map<string, number | null>();
  const unscored: TupleCandidate[] = [];
  const terms = opts.terms ?? new Map<number, SlotTerms[]>();
  const products = opts.products ?? new Map<string, string | null>();
  const spares: TupleCandidate[] = [];
  let threshold = Math.max(ladder[0], kthBest(scored, k) ?? 0);
  let provenAbove: number | undefined;
  let res: SimilarityResult;
  // Walk time over all steps: the answer's timing covers the whole ladder, not its last step.
  let walked = 0;
  for (;;) {
    const stepStart = performance.now();
    res = similaritySearch(rd, space, queryFp, {
      threshold,
      maxHits: k,
      timeoutMs: budget === undefined ? undefined : Math.max(0, stepsUntil - performance.now()),
      maxCandidates: opts.maxCandidates,
      reactions: opts.reactions,
      scored,
      unscored,
      terms,
      products,
      walkShare: 1,
      // Spares serve only a step that starts without k scores: with a k-th best known the next
      // step can jump to it, so keeping them (every cut tuple near the threshold) is wasted.
      spares: kthBest(scored, k) === undefined ? spares : undefined,
    });
    walked += res.timingMs.proposal;
    if (res.timedOut) break;
    // Too few scores to know a k-th best, so the next step could not jump to it: score the
    // tuples the cross bound cut just below this threshold, best bound first (ring-core bounds
    // tight enough to cut nearly every non-hit left the ladder stepping down blindly: the
    // benzothiazole product query walked at 0.55 instead of its k-th best, 0.582).
    let kth = kthBest(scored, k);
    if (res.hits.length < k && kth === undefined) {
      scoreSpares(rd, space, queryFp, spares, scored, k, stepsUntil);
      kth = kthBest(scored, k);
    }
    spares.length = 0;
    opts.onStep?.({ threshold, ms: performance.now() - stepStart, result: res, kth });
    // Complete at this threshold: every product at or above it is scored, so k of them scored
    // (from this search or known before) are the top k.
    if (res.hits.length >= k || threshold <= floor || (kth ?? -1) >= threshold)
      return {
        ...res,
        timingMs: { proposal: walked, assembly: performance.now() - start - walked },
        counts: overall(res.counts, scored, unscored),
        threshold,
        scoredProducts: validCount(scored),
      };
    provenAbove = threshold;
    const next = ladder.find((t) => t < threshold) ?? floor;
    const jump = Math.max(next, kth ?? -Infinity);
    threshold = jump < threshold ? jump : next;
  }
  // Out of time or candidates: the reserve scores what the steps proposed, best bound first.
  const deadline = budget === undefined ? Infinity : start + budget;
  const grace = budget === undefined ? Infinity : deadline + Math.max(budget * GRACE_FRACTION, GRACE_MIN_MS);
  // Cheap candidates first (join bits score a product in microseconds, RDKit assembly of a
  // ring-closing product takes milliseconds and their weak bounds rank them high), each group by
  // bound: nothing is proven any more, so the reserve buys as many exact scores as it can.
  const fast = space.reactions.map(hasJoinEnvs);
  unscored.sort((x, y) => Number(fast[y.reaction]) - Number(fast[x.reaction]) || y.bound - x.bound);
  const fpBuf = new Uint8Array(FP_BYTES);
  const counts = { ...res.counts };
  let held = validCount(scored);
  for (const c of unscored) {
    const now = performance.now();
    if (now > grace || (now > deadline && held >= k)) break;
    const before = scored.size;
    const s = scoreTuple(rd, space, queryFp, c, fpBuf, scored);
    if (scored.size === before) continue; // a duplicate proposal, already scored
    if (s) {
      counts.assembled++;
      held++;
    } else counts.invalid++;
  }
  // Still fewer than k and nothing left to score: the steps' thresholds were too high for the time
  // they had. A walk at the floor with a small candidate limit proposes every reaction's first
  // tuples (best separable bound first, fair shares), scored within the grace.
  const now = performance.now();
  if (held < k && now < grace) {
    const fill = similaritySearch(rd, space, queryFp, {
      threshold: floor,
      maxHits: k,
      maxCandidates: Math.max(4 * k, 64),
      timeoutMs: budget === undefined ? undefined : grace - now,
      reactions: opts.reactions,
      scored,
      terms,
      products,
    });
    counts.assembled += fill.counts.assembled;
    counts.invalid += fill.counts.invalid;
  }
  // Scored from the synthon graphs but failing RDKit's assembly: invalid, not assembled.
  const late = { invalid: 0 };
  const hits = bestScored(rd, space, scored, k, late, false, products);
  const total = overall(counts, scored, unscored);
  total.assembled -= late.invalid;
  total.invalid += late.invalid;
  return {
    hits,
    counts: total,
    timedOut: true,
    timingMs: { proposal: walked, assembly: performance.now() - start - walked },
    threshold,
    provenAbove,
    scoredProducts: validCount(scored),
  };
}
