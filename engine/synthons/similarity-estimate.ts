/**
 * Estimate-first proposal for the reactions whose exact bound is weak: those without join
 * environments (ring-closing joins, double-bond joins, three or more slots). Their bound
 * (bounds.ts) stays near 1 for small synthons, so walking it proposes hundreds of thousands of
 * tuples in an order that says little about their products, each an RDKit assembly (user trial:
 * Morgan top 100 on the 10^9 space timed out). This proposes the tuples most likely to be close,
 * the way RDKit's SynthonSpaceSearch screens (an approximate product fingerprint), and leaves the
 * proof to the exact walk (similarity-topk.ts):
 *
 * 1. Per synthon, against the query Q, c = |Q ∩ F| and n = |F| of its own fingerprint F (dummies
 *    included) and the separable gain g = 3c − n: a tuple's Tanimoto estimate
 *    Σc / (|Q| + Σn − Σc) reaches 1/2 exactly when Σg ≥ |Q| (twice (1 + t)c − t·n at t = 1/2).
 * 2. The tuples of largest Σg over all the reactions, `limit` of them, from per-slot histograms
 *    of g (convolved per reaction, so the cut is found without a walk) and a walk down each slot's
 *    synthons sorted by g.
 * 3. Each gets the Tanimoto of Q to the OR of its synthons' fingerprints (the estimate) and its
 *    exact bound; tuples whose bound is below `minBound` are dropped. Best estimate first.
 * Pure: typed arrays only.
 */
import { FP_BYTES } from '../chem/fingerprint.ts';
import { guaranteedRow, pop32, popcountWords, tupleBound } from './bounds.ts';
import type { TupleCandidate } from './similarity.ts';
import type { OpenSpace } from './space.ts';

const WORDS = FP_BYTES / 4;

export interface EstimateCandidate extends TupleCandidate {
  /** Tanimoto of the query to the OR of the synthons' own fingerprints. */
  estimate: number;
}

interface SlotGains {
  g: Int32Array;
  /** Synthon indices by g descending. */
  order: Int32Array;
  min: number;
  max: number;
}

function slotGains(q: Uint32Array, fps: Uint8Array, n: number): SlotGains {
  const words = new Uint32Array(fps.buffer, fps.byteOffset, n * WORDS);
  const g = new Int32Array(n);
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < n; i++) {
    let c = 0;
    let all = 0;
    const o = i * WORDS;
    for (let k = 0; k < WORDS; k++) {
      const v = words[o + k];
      if (v === 0) continue;
      all += pop32(v);
      c += pop32(v & q[k]);
    }
    g[i] = 3 * c - all;
    if (g[i] < min) min = g[i];
    if (g[i] > max) max = g[i];
  }
  const order = Int32Array.from({ length: n }, (_, i) => i).sort((x, y) => g[y] - g[x] || x - y);
  return { g, order, min, max };
}

/** Tuple counts by Σg (index = Σg − offset): the convolution of the slots' histograms. */
function sumHistogram(slots: SlotGains[]): { counts: Float64Array; offset: number } {
  let counts = new Float64Array([1]);
  let offset = 0;
  for (const s of slots) {
    const h = new Float64Array(s.max - s.min + 1);
    for (const v of s.g) h[v - s.min]++;
    const next = new Float64Array(counts.length + h.length - 1);
    for (let i = 0; i < counts.length; i++) {
      if (counts[i] === 0) continue;
      for (let j = 0; j < h.length; j++) next[i + j] += counts[i] * h[j];
    }
    counts = next;
    offset += s.min;
  }
  return { counts, offset };
}

/** The `limit` tuples of largest Σg over `reactions`, best estimate first, bound ≥ `minBound`. */
export function estimateCandidates(
  space: OpenSpace,
  queryFp: Uint8Array,
  reactions: readonly number[],
  limit: number,
  minBound = 0,
): EstimateCandidate[] {
  const q = new Uint32Array(WORDS);
  new Uint8Array(q.buffer).set(queryFp.subarray(0, FP_BYTES));
  const a = popcountWords(q);
  // A reaction with an empty slot has no products.
  const live = reactions.filter((r) => space.reactions[r].slots.every((s) => s.unstableEnvs.length > 0));
  if (live.length === 0 || limit <= 0) return [];
  const gains = live.map((r) =>
    space.reactions[r].slots.map((s) => slotGains(q, s.fps, s.unstableEnvs.length)),
  );
  // The cut θ: the largest Σg with at least `limit` tuples at or above it over all reactions.
  const hists = gains.map(sumHistogram);
  const lo = Math.min(...hists.map((h) => h.offset));
  const hi = Math.max(...hists.map((h) => h.offset + h.counts.length - 1));
  let theta = lo;
  for (let v = hi, seen = 0; v >= lo; v--) {
    for (const h of hists) seen += h.counts[v - h.offset] ?? 0;
    if (seen >= limit) {
      theta = v;
      break;
    }
  }
  const out: EstimateCandidate[] = [];
  const scratch = new Uint32Array(WORDS);
  const or = new Uint32Array(WORDS);
  // Σg above θ first (fewer than `limit` in all), then ties at θ while room is left.
  for (const tie of [false, true])
    gains.forEach((slots, n) => {
      const r = live[n];
      const cols = space.reactions[r].slots;
      const rest = new Int32Array(slots.length + 1);
      for (let s = slots.length - 1; s >= 0; s--) rest[s] = rest[s + 1] + slots[s].max;
      const pick = new Int32Array(slots.length);
      // Σg only falls along `order`, so the first tuple below the bar ends a slot's loop.
      const bar = tie ? theta : theta + 1;
      const walk = (s: number, sum: number): boolean => {
        for (const i of slots[s].order) {
          const v = sum + slots[s].g[i];
          if (v + rest[s + 1] < bar) break;
          pick[s] = i;
          if (s + 1 < slots.length) {
            if (!walk(s + 1, v)) return false;
            continue;
          }
          if (tie && v !== theta) continue;
          if (out.length >= limit) return false;
          const c = candidateOf(q, a, cols, pick, or, scratch);
          if (c.bound + 1e-9 >= minBound) out.push({ ...c, reaction: r });
        }
        return true;
      };
      walk(0, 0);
    });
  return out.sort((x, y) => y.estimate - x.estimate || y.bound - x.bound);
}

function candidateOf(
  q: Uint32Array,
  a: number,
  cols: OpenSpace['reactions'][number]['slots'],
  pick: Int32Array,
  or: Uint32Array,
  scratch: Uint32Array,
): Omit<EstimateCandidate, 'reaction'> {
  or.fill(0);
  let unstable = 0;
  const rows: Uint32Array[] = [];
  for (let s = 0; s < pick.length; s++) {
    const fp = guaranteedRow(cols[s].fps, pick[s]);
    for (let k = 0; k < WORDS; k++) or[k] |= fp[k];
    rows.push(guaranteedRow(cols[s].guaranteed, pick[s]));
    unstable += cols[s].unstableEnvs[pick[s]];
  }
  let c = 0;
  let all = 0;
  for (let k = 0; k < WORDS; k++) {
    all += pop32(or[k]);
    c += pop32(or[k] & q[k]);
  }
  const den = a + all - c;
  return {
    synthons: Array.from(pick),
    bound: tupleBound(q, a, rows, unstable, scratch),
    estimate: den > 0 ? c / den : 0,
  };
}
