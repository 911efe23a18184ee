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
 * Limits: `maxCandidates` and `timeoutMs` end the search early with `timedOut` set.
 */
import type { RDKitModule } from '../chem/rdkit.ts';
import { tanimoto } from '../chem/fingerprint.ts';
import { assembleProduct } from './assemble.ts';
import { fpWords, guaranteedRow, popcountWords, slotTerms, tupleBound, type SlotTerms } from './bounds.ts';
import { tupleFingerprint } from './graph-zip.ts';
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
  const t = Math.max(opts.threshold, 1e-9);
  const q = fpWords(queryFp);
  const a = popcountWords(q);
  const counts = { screened: 0, candidates: 0, assembled: 0, invalid: 0, aboveThreshold: 0 };
  const candidates: Candidate[] = [];
  let timedOut = false;
  const scratch = new Uint32Array(q.length);
  for (let r = 0; r < space.reactions.length && !timedOut; r++) {
    const reaction = space.reactions[r];
    if (opts.reactions && !opts.reactions.includes(reaction.info.id)) continue;
    const slots = reaction.slots;
    if (slots.some((s) => s.synthonIds.length === 0)) continue;
    const terms: SlotTerms[] = slots.map((s) => slotTerms(q, s.guaranteed, s.unstableEnvs));
    // Most that the slots after s can still add to Σw.
    const rest = new Int32Array(slots.length + 1);
    for (let s = slots.length - 1; s >= 0; s--) rest[s] = rest[s + 1] + terms[s].w[terms[s].order[0]];
    const pick = new Int32Array(slots.length);
    const walk = (s: number, wSum: number, dMax: number, uSum: number): void => {
      if (timedOut) return;
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
        if (
          candidates.length >= maxCandidates ||
          (counts.screened % 4096 === 0 && performance.now() > proposalDeadline)
        ) {
          timedOut = true;
          return;
        }
      }
    };
    walk(0, 0, 0, 0);
    if (performance.now() > proposalDeadline) timedOut = true;
  }
  const t1 = performance.now();
  candidates.sort((x, y) => y.bound - x.bound);
  const hits: SpaceHit[] = [];
  const pending = new Map<SpaceHit, Candidate>();
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
      // Score from the zipped graphs where that is exact; RDKit then assembles only the final hits.
      let fp = tupleFingerprint(rd, reaction.slots, c.synthons, reaction.info.ringForming);
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

/** Thresholds tried in turn by `similarityTopK` until k products are found. */
export const TOPK_THRESHOLDS = [0.7, 0.55, 0.45, 0.35, 0.25] as const;

/**
 * The best k products: exact searches at falling thresholds until one finds k products (then the
 * top k are exact), or the lowest threshold is reached (then every product above it is returned).
 */
export function similarityTopK(
  rd: RDKitModule,
  space: OpenSpace,
  queryFp: Uint8Array,
  k: number,
  opts: { timeoutMs?: number; maxCandidates?: number; floor?: number } = {},
): SimilarityResult & { threshold: number } {
  const start = performance.now();
  const floor = opts.floor ?? TOPK_THRESHOLDS[TOPK_THRESHOLDS.length - 1];
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
      scored,
    });
    last = { ...res, threshold };
    if (res.hits.length >= k || res.timedOut) break;
  }
  return last!;
}
