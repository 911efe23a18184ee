/**
 * The best k products of a space by Morgan Tanimoto, exact when the budget allows and never empty
 * when it does not (the user-trial defect: aspirin on the 10^9 space answered 0 neighbours after
 * its 20 s budget, because each threshold step kept only the hits above its own threshold).
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
import { assembleProduct } from './assemble.ts';
import { hasJoinEnvs, scoreTuple, tupleKey } from './score-tuple.ts';
import {
  hitOf,
  similaritySearch,
  type SimilarityResult,
  type SpaceHit,
  type TupleCandidate,
} from './similarity.ts';
import type { SlotTerms } from './bounds.ts';
import { tupleId, tupleSmiles, type OpenSpace } from './space.ts';

/**
 * Thresholds tried in turn by `similarityTopK` until k products are found. The last, 0, admits
 * every product, so a query dissimilar to the whole space still gets its k best.
 */
export const TOPK_THRESHOLDS = [0.7, 0.55, 0.45, 0.35, 0.25, 0.15, 0.05, 0] as const;

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

export function similarityTopK(
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
  const scored = new Map<string, number | null>();
  const unscored: TupleCandidate[] = [];
  const terms = new Map<number, SlotTerms[]>();
  let threshold = ladder[0];
  let provenAbove: number | undefined;
  let res: SimilarityResult;
  for (;;) {
    res = similaritySearch(rd, space, queryFp, {
      threshold,
      maxHits: k,
      timeoutMs: budget === undefined ? undefined : Math.max(0, stepsUntil - performance.now()),
      maxCandidates: opts.maxCandidates,
      reactions: opts.reactions,
      scored,
      unscored,
      terms,
    });
    if (res.timedOut) break;
    if (res.hits.length >= k || threshold <= floor)
      return {
        ...res,
        counts: overall(res.counts, scored, unscored),
        threshold,
        scoredProducts: validCount(scored),
      };
    provenAbove = threshold;
    const next = ladder.find((t) => t < threshold) ?? floor;
    const jump = Math.max(next, kthBest(scored, k) ?? -Infinity);
    threshold = jump < threshold ? jump : next;
  }
  // Out of time or candidates: the reserve scores what the steps proposed, best bound first.
  const t1 = performance.now();
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
    });
    counts.assembled += fill.counts.assembled;
    counts.invalid += fill.counts.invalid;
  }
  // Scored from the synthon graphs but failing RDKit's assembly: invalid, not assembled.
  const late = { invalid: 0 };
  const hits = bestScored(rd, space, scored, k, late);
  const total = overall(counts, scored, unscored);
  total.assembled -= late.invalid;
  total.invalid += late.invalid;
  return {
    hits,
    counts: total,
    timedOut: true,
    timingMs: { proposal: res.timingMs.proposal, assembly: res.timingMs.assembly + performance.now() - t1 },
    threshold,
    provenAbove,
    scoredProducts: validCount(scored),
  };
}

/**
 * Counts over the whole search rather than its last step: tuples proposed by any step (each once),
 * and of them those scored (valid products) or found invalid. A step's own counts leave out what
 * earlier steps scored, so a budget-cut answer reported fewer proposed than assembled (user trial).
 */
function overall(
  counts: SimilarityResult['counts'],
  scored: Map<string, number | null>,
  unscored: TupleCandidate[],
): SimilarityResult['counts'] {
  const proposed = new Set(scored.keys());
  for (const u of unscored) proposed.add(tupleKey(u));
  const valid = validCount(scored);
  return { ...counts, candidates: proposed.size, assembled: valid, invalid: scored.size - valid };
}

function validCount(scored: Map<string, number | null>): number {
  let n = 0;
  for (const v of scored.values()) if (v !== null) n++;
  return n;
}

/** The k-th best score among the scored products, or undefined with fewer than k. */
function kthBest(scored: Map<string, number | null>, k: number): number | undefined {
  const sims = validSims(scored);
  if (sims.length < k) return undefined;
  return sims.sort()[sims.length - k];
}

function validSims(scored: Map<string, number | null>): Float64Array {
  const sims = new Float64Array(scored.size);
  let n = 0;
  for (const v of scored.values()) if (v !== null) sims[n++] = v;
  return sims.subarray(0, n);
}

function parseKey(key: string, bound: number): TupleCandidate {
  const [r, list] = key.split(':');
  return { reaction: Number(r), synthons: list.split(',').map(Number), bound };
}

/**
 * The k best scored products as hits (similarity descending, then product id, as
 * similaritySearch orders them), each assembled by RDKit for its SMILES, one per molecule: a
 * product that does not assemble is counted invalid, one that repeats a molecule already taken
 * (another route to it) is skipped, and the next one is taken — from a wider cut when the first
 * 2k scored run out, so a budget-cut answer still holds k distinct molecules when it scored them.
 */
function bestScored(
  rd: RDKitModule,
  space: OpenSpace,
  scored: Map<string, number | null>,
  k: number,
  counts: { invalid: number },
): SpaceHit[] {
  const sims = validSims(scored).sort().reverse();
  if (sims.length === 0 || k <= 0) return [];
  const hits: SpaceHit[] = [];
  const seen = new Set<string>();
  // Each round takes the scored products below the last round's cut and at or above its own.
  let above = Infinity;
  for (let want = 2 * k; hits.length < k && above > sims[sims.length - 1]; want *= 4) {
    const cut = sims[Math.min(sims.length, want) - 1];
    const round: Array<{ c: TupleCandidate; sim: number; id: string }> = [];
    for (const [key, sim] of scored)
      if (sim !== null && sim >= cut && sim < above) {
        const c = parseKey(key, sim);
        round.push({ c, sim, id: tupleId(space, c) });
      }
    round.sort((x, y) => y.sim - x.sim || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
    for (const b of round) {
      if (hits.length >= k) break;
      const product = assembleProduct(rd, tupleSmiles(space, b.c));
      if (!product) {
        counts.invalid++;
        continue;
      }
      if (seen.has(product.smiles)) continue;
      seen.add(product.smiles);
      hits.push(hitOf(space, b.c, product.smiles, b.sim));
    }
    above = cut;
  }
  return hits;
}
