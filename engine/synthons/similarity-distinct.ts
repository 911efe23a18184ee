/**
 * The k best distinct products of a space. One product can be reached by several routes (two
 * reactions, or two synthon tuples of one) and a legacy row or a v2 hit is a product, so each
 * canonical SMILES is kept once, at its best score (hits come best first). When duplicates leave
 * fewer than k, the search is run again for more tuples within what is left of the same budget,
 * sharing its exact scores and per-query terms with the rounds before; it stops when the space has
 * no more products or the budget runs out (then fewer than k may be returned). A user trial saw
 * aspirin's top 100 on the 10^9 space take 14–20 s where one round took ~5 s: 40 of the first
 * round's 100 tuples repeated a product, and the second round, a new pool call, started over.
 */
import type { RDKitModule } from '../chem/rdkit.ts';
import type { OpenSpace } from './space.ts';
import { similarityTopK, type TopKOptions, type TopKResult } from './similarity-topk.ts';

/** One round: the best `k` tuples within `timeoutMs` (undefined: no budget). */
export type TopKRound = (k: number, timeoutMs: number | undefined) => TopKResult;

export function distinctTopK(
  rd: RDKitModule,
  space: OpenSpace,
  queryFp: Uint8Array,
  k: number,
  opts: TopKOptions = {},
): TopKResult {
  const scored = opts.scored ?? new Map<string, number | null>();
  const terms = opts.terms ?? new Map();
  // Each round's hits repeat the last round's: assembled once (productSmiles).
  const products = opts.products ?? new Map<string, string | null>();
  const round: TopKRound = (ask, timeoutMs) =>
    similarityTopK(rd, space, queryFp, ask, { ...opts, timeoutMs, scored, terms, products });
  return distinctRounds(round, k, opts.timeoutMs);
}

/** distinctTopK's rounds over any round function (tests inject a round cut by its budget). */
export function distinctRounds(round: TopKRound, k: number, timeoutMs?: number): TopKResult {
  const start = performance.now();
  const left = (): number | undefined =>
    timeoutMs === undefined ? undefined : Math.max(0, timeoutMs - (performance.now() - start));
  const spent = { proposal: 0, assembly: 0 };
  let ask = k;
  let complete: TopKResult | undefined;
  for (;;) {
    const got = round(ask, left());
    spent.proposal += got.timingMs.proposal;
    spent.assembly += got.timingMs.assembly;
    // A later round cut by the budget holds only the best it reached; the earlier complete round
    // proved its hits, so they are kept (a trial saw a timed-out second round replace them).
    const res = got.timedOut && complete ? mergeRounds(complete, got) : got;
    const seen = new Set<string>();
    const hits = res.hits.filter((h) => !seen.has(h.smiles) && seen.add(h.smiles));
    const done = hits.length >= k || got.hits.length < ask || got.timedOut || left() === 0;
    if (done) return { ...res, hits: hits.slice(0, k), timingMs: { ...spent } };
    complete = got;
    // Twice the shortfall: the extra tuples may repeat products too.
    ask += 2 * (k - hits.length);
  }
}

/**
 * A complete round's hits with those of a later round cut short, best first. The complete round
 * scored every product down to its last hit and the cut round every product down to its
 * provenAbove (if any), so together every product down to the lower of the two was scored.
 */
function mergeRounds(complete: TopKResult, cut: TopKResult): TopKResult {
  const floor = complete.hits.at(-1)?.similarity ?? complete.threshold;
  const hits = [...complete.hits, ...cut.hits].sort((a, b) => b.similarity - a.similarity);
  return {
    ...cut,
    hits,
    provenAbove: cut.provenAbove === undefined ? floor : Math.min(floor, cut.provenAbove),
    scoredProducts: Math.max(complete.scoredProducts, cut.scoredProducts),
  };
}
