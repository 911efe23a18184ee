/**
 * Morgan similarity over a synthon space without enumerating it, exact: every product whose
 * Tanimoto to the query reaches the threshold is found (bounds.ts proves the bound).
 *
 * 1. Per reaction and slot, per-synthon bound terms against the query (slotTerms).
 * 2. Tuples are walked slot by slot with synthons in descending order of what they can add; a
 *    branch stops as soon as the separable bound falls below the threshold.
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
import { FP_BYTES, tanimoto } from '../chem/fingerprint.ts';
import { assembleProduct } from './assemble.ts';
import { fpWords, guaranteedRow, popcountWords, slotTerms, tupleBound, type SlotTerms } from './bounds.ts';
import { tupleFingerprint } from './graph-zip.ts';
import { joinable, joinFingerprint } from './join-bits.ts';
import { envFingerprint, joinWalk, slotJoinEnvs } from './join-walk.ts';
import { tupleId, tupleSmiles, type OpenSpace } from './space.ts';

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
   * `reaction:synthon,synthon`; null = invalid assembly): similarityTopK passes one map through
   * its falling thresholds so no tuple is assembled twice.
   */
  scored?: Map<string, number | null>;
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
    /** Tuples the separable bound let through. */
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

interface Candidate {
  reaction: number;
  synthons: number[];
  bound: number;
}

/** Every product at or above the threshold (or the best `maxHits` of them), exactly scored. */
export function similaritySearch(
  rd: RDKitModule,
  space: OpenSpace,
  queryFp: Uint8Array,
  opts: SimilarityOptions,
): SimilarityResult {
  const t0 = performance.now();
  const deadline = opts.timeoutMs === undefined ? Infinity : t0 + opts.timeoutMs;
  // The walk may use half the budget: a search that runs out of time still scores its best-bounded
  // candidates (hits marked timedOut) instead of returning none.
  const proposalDeadline = opts.timeoutMs === undefined ? Infinity : t0 + opts.timeoutMs / 2;
  const maxCandidates = opts.maxCandidates ?? 2_000_000;
  const maxHits = opts.maxHits ?? Infinity;
  // t = 0 admits every tuple (every comparison below is `< t·…`).
  const t = Math.max(opts.threshold, 0);
  const q = fpWords(queryFp);
  const a = popcountWords(q);
  const counts = { screened: 0, candidates: 0, assembled: 0, invalid: 0, aboveThreshold: 0 };
  const candidates: Candidate[] = [];
  let timedOut = false;
  const scratch = new Uint32Array(q.length);
  // Every reaction gets a fair share of what is left of the proposal time and of the candidate
  // limit, so a budgeted search sees every reaction instead of spending it all on the first ones.
  const todo = space.reactions
    .map((_, r) => r)
    .filter((r) => {
      const reaction = space.reactions[r];
      if (opts.reactions && !opts.reactions.includes(reaction.info.id)) return false;
      return reaction.slots.every((s) => s.synthonIds.length > 0);
    });
  // A reaction cut off at its share is walked again afterwards with what the others left unused.
  for (let pass = 0, queue = todo; queue.length > 0 && pass < 2; pass++) {
    const cut: number[] = [];
    const cutOff = (r: number): void => {
      if (pass > 0) {
        timedOut = true;
        return;
      }
      let k = 0;
      for (const c of candidates) if (c.reaction !== r) candidates[k++] = c;
      counts.candidates -= candidates.length - k;
      candidates.length = k;
      cut.push(r);
    };
    for (let n = 0; n < queue.length; n++) {
      const r = queue[n];
      const reaction = space.reactions[r];
      const left = queue.length - n;
      const now = performance.now();
      const until = now + Math.max(0, proposalDeadline - now) / left;
      const cap = candidates.length + Math.floor((maxCandidates - candidates.length) / left);
      let stop = false;
      const slots = reaction.slots;
      const terms: SlotTerms[] = slots.map((s) => slotTerms(q, s.guaranteed, s.unstableEnvs));
      const envs = joinable(reaction.info) ? slots.map(slotJoinEnvs) : [];
      if (envs.length === 2 && envs[0] && envs[1]) {
        // Two synthons, one join: the bound from the join's own cross codes (join-walk.ts).
        const push = (i: number, j: number, bound: number): boolean => {
          counts.candidates++;
          candidates.push({ reaction: r, synthons: [i, j], bound });
          return !(stop = candidates.length >= cap);
        };
        const expired = (): boolean => (stop = stop || performance.now() > until);
        joinWalk(q, a, t, slots, [envs[0], envs[1]], terms, counts, push, expired);
        if (stop || performance.now() > until) cutOff(r);
        continue;
      }
      // Most that the slots after s can still add to Σw.
      const rest = new Int32Array(slots.length + 1);
      for (let s = slots.length - 1; s >= 0; s--) rest[s] = rest[s + 1] + terms[s].w[terms[s].order[0]];
      const pick = new Int32Array(slots.length);
      const walk = (s: number, wSum: number, dMax: number, uSum: number): void => {
        if (stop) return;
        const ts = terms[s];
        for (const i of ts.order) {
          const w = wSum + ts.w[i];
          const d = Math.max(dMax, ts.d[i]);
          // Σw only shrinks along `order` and max d only grows, so the first failure ends the loop.
          if (Math.min(a, w + rest[s + 1]) < t * (a + Math.max(dMax, 0))) break;
          if (Math.min(a, w + rest[s + 1]) < t * (a + d)) continue;
          pick[s] = i;
          const u = uSum + slots[s].unstableEnvs[i];
          if (s + 1 < slots.length) {
            walk(s + 1, w, d, u);
            continue;
          }
          counts.screened++;
          const rows = Array.from(pick, (p, k) => guaranteedRow(slots[k].guaranteed, p));
          const bound = tupleBound(q, a, rows, u, scratch);
          if (bound + 1e-9 < t) continue;
          counts.candidates++;
          candidates.push({ reaction: r, synthons: Array.from(pick), bound });
          if (candidates.length >= cap || (counts.screened % 4096 === 0 && performance.now() > until)) {
            stop = true;
            return;
          }
        }
      };
      walk(0, 0, 0, 0);
      if (stop || performance.now() > until) cutOff(r);
    }
    queue = cut;
  }
  const t1 = performance.now();
  candidates.sort((x, y) => y.bound - x.bound);
  const hits: SpaceHit[] = [];
  const pending = new Map<SpaceHit, Candidate>();
  const fpBuf = new Uint8Array(FP_BYTES);
  for (const c of candidates) {
    if (hits.length >= maxHits && hits[hits.length - 1].similarity >= c.bound) break;
    if (performance.now() > deadline) {
      timedOut = true;
      break;
    }
    const key = `${c.reaction}:${c.synthons.join(',')}`;
    const known = opts.scored?.get(key);
    let smiles = '';
    let sim: number;
    if (known === null) {
      counts.invalid++;
      continue;
    } else if (known !== undefined) sim = known;
    else {
      const reaction = space.reactions[c.reaction];
      // Score from join bits or the zipped graphs where that is exact; RDKit then assembles only
      // the final hits.
      let fp: Uint8Array | undefined;
      if (joinable(reaction.info)) {
        const [ea, eb] = reaction.slots.map(slotJoinEnvs);
        // Only where the build wrote join environments: elsewhere (a double-bond join) the
        // synthons would be parsed just to find they cannot take the join-bits path.
        if (ea && eb)
          fp =
            envFingerprint(reaction.slots, [ea, eb], c.synthons[0], c.synthons[1], fpBuf) ??
            joinFingerprint(rd, reaction.slots, c.synthons[0], c.synthons[1], fpBuf);
      }
      fp ??= tupleFingerprint(rd, reaction.slots, c.synthons, reaction.info.ringForming);
      if (!fp) {
        const product = assembleProduct(rd, tupleSmiles(space, c), true);
        if (!product?.fp) {
          counts.invalid++;
          opts.scored?.set(key, null);
          continue;
        }
        ({ smiles, fp } = product);
      }
      sim = tanimoto(queryFp, fp!);
      opts.scored?.set(key, sim);
    }
    counts.assembled++;
    if (sim < opts.threshold) continue;
    counts.aboveThreshold++;
    const hit = hitOf(space, c, smiles, sim);
    if (insertHit(hits, maxHits, hit) && !smiles) pending.set(hit, c);
  }
  for (let i = 0; i < hits.length; i++) {
    const c = pending.get(hits[i]);
    if (!c) continue;
    const product = assembleProduct(rd, tupleSmiles(space, c));
    if (product) hits[i].smiles = product.smiles;
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

function hitOf(space: OpenSpace, c: Candidate, smiles: string, similarity: number): SpaceHit {
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
function insertHit(hits: SpaceHit[], max: number, h: SpaceHit): boolean {
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

/**
 * Thresholds tried in turn by `similarityTopK` until k products are found. The last, 0, admits
 * every product, so a query dissimilar to the whole space still gets its k best (or the search
 * ends at its time or candidate budget, marked `timedOut`): never silently nothing.
 */
export const TOPK_THRESHOLDS = [0.7, 0.55, 0.45, 0.35, 0.25, 0.15, 0.05, 0] as const;

export interface TopKOptions {
  timeoutMs?: number;
  maxCandidates?: number;
  /** Lowest threshold tried (default 0: all products). */
  floor?: number;
  /** Only these reactions (by id). */
  reactions?: readonly string[];
}

/**
 * The best k products: exact searches at falling thresholds until one finds k products (then the
 * top k are exact, by the proven bound), or the floor is reached (then every product above it is
 * returned). A step that runs out of budget keeps the hits of the last completed step (exact above
 * its threshold) merged with its own, so lowering the threshold never loses a hit.
 */
export function similarityTopK(
  rd: RDKitModule,
  space: OpenSpace,
  queryFp: Uint8Array,
  k: number,
  opts: TopKOptions = {},
): SimilarityResult & { threshold: number } {
  const start = performance.now();
  const floor = opts.floor ?? 0;
  const steps = [...TOPK_THRESHOLDS.filter((t) => t > floor), floor];
  let last: (SimilarityResult & { threshold: number }) | undefined;
  const scored = new Map<string, number | null>();
  for (const threshold of steps) {
    const left = opts.timeoutMs === undefined ? undefined : opts.timeoutMs - (performance.now() - start);
    const res = similaritySearch(rd, space, queryFp, {
      threshold,
      maxHits: k,
      timeoutMs: left === undefined ? undefined : Math.max(0, left),
      maxCandidates: opts.maxCandidates,
      reactions: opts.reactions,
      scored,
    });
    if (res.timedOut && last) {
      // The completed step's hits are exact above its threshold; the cut-short step adds what it
      // scored below it.
      const hits = [...last.hits];
      const seen = new Set(hits.map((h) => h.productId));
      for (const h of res.hits) if (!seen.has(h.productId)) insertHit(hits, k, h);
      return { ...res, hits, threshold };
    }
    last = { ...res, threshold };
    if (res.hits.length >= k || res.timedOut) break;
  }
  return last!;
}
