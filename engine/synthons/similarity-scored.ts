/**
 * The map every step of a top-k search shares (tuple key → exact Tanimoto, null = invalid
 * assembly) and what is read off it: counts over the whole search, the k-th best score, and the
 * k best products as hits.
 */
import type { RDKitModule } from '../chem/rdkit.ts';
import { FP_BYTES } from '../chem/fingerprint.ts';
import { productSmiles, scoreTuple, tupleKey } from './score-tuple.ts';
import { hitOf, type SimilarityResult, type SpaceHit, type TupleCandidate } from './similarity.ts';
import { tupleId, type OpenSpace } from './space.ts';

/**
 * Counts over the whole search rather than its last step: tuples proposed by any step (each once),
 * and of them those scored (valid products) or found invalid. A step's own counts leave out what
 * earlier steps scored, so a budget-cut answer reported fewer proposed than assembled (user trial).
 */
export function overall(
  counts: SimilarityResult['counts'],
  scored: Map<string, number | null>,
  unscored: TupleCandidate[],
): SimilarityResult['counts'] {
  const proposed = new Set(scored.keys());
  for (const u of unscored) proposed.add(tupleKey(u));
  const valid = validCount(scored);
  return { ...counts, candidates: proposed.size, assembled: valid, invalid: scored.size - valid };
}

export function validCount(scored: Map<string, number | null>): number {
  let n = 0;
  for (const v of scored.values()) if (v !== null) n++;
  return n;
}

/** The k-th best score among the scored products, or undefined with fewer than k. */
export function kthBest(scored: Map<string, number | null>, k: number): number | undefined {
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
 * With `routes`, every tuple is a hit of its own (two routes to one molecule are two hits), as
 * similaritySearch answers: an exact answer whose callers keep each molecule once and ask for
 * more when routes leave fewer than they want (job-search.ts, space-search.ts).
 */
export function bestScored(
  rd: RDKitModule,
  space: OpenSpace,
  scored: Map<string, number | null>,
  k: number,
  counts: { invalid: number },
  routes = false,
  products?: Map<string, string | null>,
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
      const smiles = productSmiles(rd, space, b.c, products);
      if (smiles === undefined) {
        counts.invalid++;
        continue;
      }
      if (!routes && seen.has(smiles)) continue;
      seen.add(smiles);
      hits.push(hitOf(space, b.c, smiles, b.sim));
    }
    above = cut;
  }
  return hits;
}

/**
 * Scores `spares` (tuples a step cut just below its threshold) best bound first while one could
 * still raise the k-th best score known (its bound above it, or fewer than k known), at most 4k of
 * them and until `until` (a performance.now() time). The scores are exact, so the k-th best read
 * off them is a true lower bound on the k-th best product.
 */
export function scoreSpares(
  rd: RDKitModule,
  space: OpenSpace,
  queryFp: Uint8Array,
  spares: TupleCandidate[],
  scored: Map<string, number | null>,
  k: number,
  until: number,
): void {
  spares.sort((x, y) => y.bound - x.bound);
  const fpBuf = new Uint8Array(FP_BYTES);
  // The k best scores known, descending.
  const top = Array.from(validSims(scored))
    .sort((x, y) => y - x)
    .slice(0, k);
  for (let n = 0, tried = 0; n < spares.length && tried < 4 * k; n++) {
    if (top.length >= k && spares[n].bound <= top[k - 1]) return;
    if (performance.now() > until) return;
    if (scored.has(tupleKey(spares[n]))) continue;
    tried++;
    const s = scoreTuple(rd, space, queryFp, spares[n], fpBuf, scored);
    if (!s) continue;
    let at = top.length;
    while (at > 0 && top[at - 1] < s.sim) at--;
    if (at < k) top.splice(at, 0, s.sim);
    if (top.length > k) top.pop();
  }
}
