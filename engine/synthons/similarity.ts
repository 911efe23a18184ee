/**
 * Morgan similarity over a synthon space without enumerating it, exact: every product whose
 * Tanimoto to the query reaches the threshold is found (bounds.ts proves the bound).
 *
 * 1. Per reaction and slot, per-synthon bound terms against the query (slotTerms).
 * 2. Tuples are walked slot by slot with synthons in descending order of what they can add; a
 *    branch stops as soon as a cheap bound falls below the threshold (tuple-walk.ts).
 * 3. Survivors get the OR bound; those at or above the threshold are candidates.
 * 4. Candidates are assembled (RDKit molzip) and scored exactly in descending bound order; with
 *    `maxHits` the walk stops once the k-th best score beats the next candidate's bound, so the
 *    top k are exact too.
 * Two-synthon, one-join reactions with join environments take join-walk.ts's tighter bound and are
 * scored from join bits without assembly (docs/synthon-spaces.md, "Join bits").
 * Limits: `maxCandidates` and `timeoutMs` end the search early with `timedOut` set; every reaction
 * gets a fair share of what is left of both.
 */
import type { RDKitModule } from '../chem/rdkit.ts';
import { FP_BYTES } from '../chem/fingerprint.ts';
import { hasJoinEnvs, productSmiles, scoreTuple, tupleKey } from './score-tuple.ts';
import { fpWords, popcountWords, slotTerms, type SlotTerms } from './bounds.ts';
import { joinable } from './join-bits.ts';
import { joinWalk, slotJoinEnvs } from './join-walk.ts';
import { tupleWalk } from './tuple-walk.ts';
import { crossBounder } from './ring-cross.ts';
import { keepSpare, SPARE_BELOW } from './spares.ts';
import { tupleId, type OpenSpace } from './space.ts';

export { SPARE_BELOW, SPARE_MAX } from './spares.ts';

export interface SimilarityOptions {
  /** Lowest Tanimoto returned (0..1). */
  threshold: number;
  /** Most hits returned (best first); Infinity for all above the threshold. */
  maxHits?: number;
  /** Candidate tuples beyond this end the search (`timedOut`). Default 2,000,000. */
  maxCandidates?: number;
  timeoutMs?: number;
  /** Only these reactions (by id). */
  reactions?: readonly string[];
  /**
   * Scores of tuples already assembled by an earlier search with the same query (key
   * `reaction:synthon,synthon`; null = invalid assembly): similarityTopK (similarity-topk.ts) passes one map through
   * its falling thresholds so no tuple is assembled twice.
   */
  scored?: Map<string, number | null>;
  /**
   * Receives the candidates left unscored when the search stops at its deadline (best bound
   * first), so similarityTopK can score them with the budget it kept back.
   */
  unscored?: TupleCandidate[];
  /**
   * Receives tuples the cross bound cut just below the threshold (bound ≥ threshold − SPARE_BELOW,
   * at most SPARE_MAX of the best): similarityTopK's ladder scores some when a step ends with too
   * few scores to know a k-th best, so that it can still jump to it (spares.ts, similarity-scored.ts scoreSpares).
   */
  spares?: TupleCandidate[];
  /** Per reaction index, the slot terms of this query (filled and reused across searches). */
  terms?: Map<number, SlotTerms[]>;
  /** Hits' SMILES already assembled (score-tuple.ts productSmiles), shared across searches. */
  products?: Map<string, string | null>;
  /**
   * A walk cut short (time or `maxCandidates`) scores nothing and returns at once: the caller
   * spends the time on candidates of its own (similarityTopK's estimate stage).
   */
  abandonIfCut?: boolean;
  /**
   * Share of `timeoutMs` the walk may take (default 0.5, so a search cut short still scores its
   * best-bounded candidates). similarityTopK's ladder passes 1: it keeps a reserve of its own for
   * scoring, and half a step was too little under load (user trial: a query cut at its walk's
   * share answered "not proven" after 8 of its 20 s, the rest unused).
   */
  walkShare?: number;
}

export interface SpaceHit {
  productId: string;
  smiles: string;
  similarity: number;
  reactionId: string;
  synthons: Array<{ slot: number; synthonId: string; smiles: string }>;
}

export interface SimilarityResult {
  hits: SpaceHit[];
  counts: {
    /** Tuples the cheap bounds (separable, then exact x with max d) let through. */
    screened: number;
    /** Tuples whose OR bound reached the threshold. */
    candidates: number;
    assembled: number;
    invalid: number;
    /** Assembled products at or above the threshold. */
    aboveThreshold: number;
  };
  timedOut: boolean;
  timingMs: { proposal: number; assembly: number };
}

/** A tuple of a reaction (synthon index per slot) with its proven upper bound on Tanimoto. */
export interface TupleCandidate {
  reaction: number;
  synthons: number[];
  bound: number;
}
type Candidate = TupleCandidate;

/** Every product at or above the threshold (or the best `maxHits` of them), exactly scored. */
export function similaritySearch(
  rd: RDKitModule,
  space: OpenSpace,
  queryFp: Uint8Array,
  opts: SimilarityOptions,
): SimilarityResult {
  const t0 = performance.now();
  const deadline = opts.timeoutMs === undefined ? Infinity : t0 + opts.timeoutMs;
  // The walk may use `walkShare` of the budget (half by default): a search that runs out of time still scores its best-bounded
  // candidates (hits marked timedOut) instead of returning none.
  const proposalDeadline =
    opts.timeoutMs === undefined ? Infinity : t0 + opts.timeoutMs * (opts.walkShare ?? 0.5);
  const maxCandidates = opts.maxCandidates ?? 2_000_000;
  const maxHits = opts.maxHits ?? Infinity;
  // t = 0 admits every tuple (every comparison below is `< t·…`).
  const t = Math.max(opts.threshold, 0);
  const q = fpWords(queryFp);
  const a = popcountWords(q);
  const counts = { screened: 0, candidates: 0, assembled: 0, invalid: 0, aboveThreshold: 0 };
  const candidates: Candidate[] = [];
  let timedOut = false;
  // Every reaction gets a fair share of what is left of the proposal time and of the candidate
  // limit, so a budgeted search sees every reaction instead of spending it all on the first ones.
  const todo = searchableReactions(space, opts.reactions);
  // A reaction cut off at its share is walked again afterwards with what the others left unused.
  // It keeps the candidates of its first walk: the walk is deterministic, so the second skips the
  // first `emitted[r]` it proposes instead of throwing them away and proposing them again.
  const emitted = new Map<number, number>();
  for (let pass = 0, queue = todo; queue.length > 0 && pass < 2; pass++) {
    const cut: number[] = [];
    const cutOff = (r: number): void => {
      if (pass > 0) timedOut = true;
      else cut.push(r);
    };
    for (let n = 0; n < queue.length; n++) {
      const r = queue[n];
      const reaction = space.reactions[r];
      const left = queue.length - n;
      const now = performance.now();
      // Out of proposal time: the reactions not walked yet are left out (their setup alone costs
      // 0.1-0.3 s each on the 10^9 space), so the candidates found so far still get scored.
      if (now > proposalDeadline) {
        timedOut = true;
        break;
      }
      const until = now + Math.max(0, proposalDeadline - now) / left;
      const cap = candidates.length + Math.floor((maxCandidates - candidates.length) / left);
      let stop = false;
      let skip = emitted.get(r) ?? 0;
      const propose = (synthons: number[], bound: number): void => {
        if (skip > 0) {
          skip--;
          return;
        }
        // A second pass may start at the limit (the first passes kept their candidates).
        if (candidates.length >= cap) {
          stop = true;
          return;
        }
        counts.candidates++;
        candidates.push({ reaction: r, synthons, bound });
        emitted.set(r, (emitted.get(r) ?? 0) + 1);
        if (candidates.length >= cap) stop = true;
      };
      const slots = reaction.slots;
      const spares = opts.spares;
      // The per-synthon terms depend on the query only: similarityTopK's steps share them.
      let terms = opts.terms?.get(r);
      if (!terms) {
        terms = slots.map((s) => slotTerms(q, s.guaranteed, s.unstableEnvs));
        opts.terms?.set(r, terms);
      }
      const envs = joinable(reaction.info) ? slots.map(slotJoinEnvs) : [];
      if (envs.length === 2 && envs[0] && envs[1]) {
        // Two synthons, one join: the bound from the join's own cross codes (join-walk.ts).
        const push = (i: number, j: number, bound: number): boolean => {
          propose([i, j], bound);
          return !stop;
        };
        const expired = (): boolean => (stop = stop || performance.now() > until);
        const spare = spares
          ? (i: number, j: number, b: number): void =>
              keepSpare(spares, { reaction: r, synthons: [i, j], bound: b })
          : undefined;
        joinWalk(q, a, t, slots, [envs[0], envs[1]], terms, counts, push, expired, spare, SPARE_BELOW);
        if (stop || performance.now() > until) cutOff(r);
        continue;
      }
      // Any other shape: the slot-by-slot walk (tuple-walk.ts); ring-core tuples then take the
      // bound from their pair of cores (ring-cross.ts), which drops most of them.
      const cross = crossBounder(rd, reaction, q, a, terms);
      const pushPick = (pick: Int32Array, bound: number): boolean => {
        const b = cross ? Math.min(bound, cross(pick[0], pick[1], t) ?? bound) : bound;
        if (b + 1e-9 >= t) propose(Array.from(pick), b);
        else if (spares && b >= t - SPARE_BELOW)
          keepSpare(spares, { reaction: r, synthons: Array.from(pick), bound: b });
        return !stop;
      };
      const expired = (): boolean => (stop = stop || performance.now() > until);
      tupleWalk(q, a, t, slots, terms, counts, pushPick, expired);
      if (stop || performance.now() > until) cutOff(r);
    }
    queue = cut;
  }
  const t1 = performance.now();
  if (timedOut && opts.abandonIfCut)
    return { hits: [], counts, timedOut, timingMs: { proposal: t1 - t0, assembly: 0 } };
  // A walk cut short proves nothing, so its candidates are scored cheapest first (join bits take
  // microseconds, RDKit assembly of a ring-closing product milliseconds, and the weak bounds of
  // the latter rank them first): more exact scores in the time left. Otherwise best bound first.
  const cheapFirst = timedOut;
  const fast = space.reactions.map((r) => cheapFirst && hasJoinEnvs(r));
  candidates.sort((x, y) => Number(fast[y.reaction]) - Number(fast[x.reaction]) || y.bound - x.bound);
  const hits: SpaceHit[] = [];
  const pending = new Map<SpaceHit, Candidate>();
  const fpBuf = new Uint8Array(FP_BYTES);
  for (let n = 0; n < candidates.length; n++) {
    const c = candidates[n];
    if (!cheapFirst && hits.length >= maxHits && hits[hits.length - 1].similarity >= c.bound) break;
    if (performance.now() > deadline) {
      timedOut = true;
      if (opts.unscored)
        for (let m = n; m < candidates.length; m++) {
          const u = candidates[m];
          if (!opts.scored?.has(tupleKey(u))) opts.unscored.push(u);
        }
      break;
    }
    const scored = scoreTuple(rd, space, queryFp, c, fpBuf, opts.scored);
    if (!scored) {
      counts.invalid++;
      continue;
    }
    const { sim, smiles } = scored;
    counts.assembled++;
    if (sim < opts.threshold) continue;
    counts.aboveThreshold++;
    const hit = hitOf(space, c, smiles, sim);
    if (insertHit(hits, maxHits, hit) && !smiles) pending.set(hit, c);
  }
  for (let i = 0; i < hits.length; i++) {
    const c = pending.get(hits[i]);
    if (!c) continue;
    const smiles = productSmiles(rd, space, c, opts.products);
    if (smiles !== undefined) hits[i].smiles = smiles;
    else {
      counts.invalid++;
      hits.splice(i--, 1);
    }
  }
  return {
    hits,
    counts,
    timedOut,
    timingMs: { proposal: t1 - t0, assembly: performance.now() - t1 },
  };
}

/** Indices of the reactions to search: those named (all when none are), without empty slots. */
export function searchableReactions(space: OpenSpace, ids?: readonly string[]): number[] {
  return space.reactions
    .map((_, r) => r)
    .filter((r) => {
      const reaction = space.reactions[r];
      if (ids && !ids.includes(reaction.info.id)) return false;
      return reaction.slots.every((s) => s.synthonIds.length > 0);
    });
}

export function hitOf(space: OpenSpace, c: Candidate, smiles: string, similarity: number): SpaceHit {
  const reaction = space.reactions[c.reaction];
  return {
    productId: tupleId(space, c),
    smiles,
    similarity,
    reactionId: reaction.info.id,
    synthons: c.synthons.map((i, s) => ({
      slot: s,
      synthonId: reaction.slots[s].synthonIds[i],
      smiles: reaction.slots[s].smiles[i],
    })),
  };
}

/** Keeps `hits` sorted (similarity descending, then product id), at most `max`; false if not kept. */
export function insertHit(hits: SpaceHit[], max: number, h: SpaceHit): boolean {
  let i = hits.length;
  while (
    i > 0 &&
    (hits[i - 1].similarity < h.similarity ||
      (hits[i - 1].similarity === h.similarity && hits[i - 1].productId > h.productId))
  )
    i--;
  if (i >= max) return false;
  hits.splice(i, 0, h);
  if (hits.length > max) hits.pop();
  return true;
}
