/**
 * How the 3D search paths rank and present scored candidates: the ranking key of each search type
 * (`consensus` fuses the Morgan, shape and electrostatic rankings), the legacy orderings applied to
 * the result rows, and the score columns of a neighbour row.
 */
import { reciprocalRankFusion } from '../../engine/search/fusion.ts';
import type { OrderingName } from './search-service.ts';
import type { ScoredCandidate } from './shape-stages.ts';

/** What /molsearch and /molsearch_simple accept as `search_type`: the interface's types plus `consensus`. */
export const RANKED_TYPES = ['espsim_shape', 'espsim_electrostatic', 'morgan', 'consensus'] as const;
export type RankedType = (typeof RANKED_TYPES)[number];

/** The score column each type adds to a neighbour row (rows of a 3D search carry all of them). */
export const SCORE_COLUMNS = {
  espsim_shape: 'Shapesim',
  espsim_electrostatic: 'Espsim',
  morgan: 'Morgan Tanimoto',
  consensus: 'Consensus',
} as const satisfies Record<RankedType, string>;

/** Orderings that need a 3D score of every row (they route a morgan search through the 3D path). */
export const THREE_D_ORDERINGS: readonly OrderingName[] = ['Shapesim Dissimilarity', 'Espsim Dissimilarity'];

export interface RankedCandidate extends ScoredCandidate {
  /** Reciprocal-rank fusion of the Morgan, shape and ESP rankings among the candidates. */
  consensus: number;
}

/** Worse than any real score: rows without conformers rank last by a 3D key. */
const missing = (v: number | null) => (v === null ? -Infinity : v);

/** The score a type ranks by. */
export function scoreOf(c: RankedCandidate, type: RankedType): number {
  if (type === 'espsim_shape') return missing(c.shape);
  if (type === 'espsim_electrostatic') return missing(c.esp);
  if (type === 'morgan') return c.morgan;
  return c.consensus;
}

/** Adds the consensus score: RRF over the candidates' Morgan, shape and ESP rankings. */
export function withConsensus(scored: ScoredCandidate[]): RankedCandidate[] {
  const fused = scored.length
    ? reciprocalRankFusion([
        scored.map((c) => c.morgan),
        scored.map((c) => c.shape ?? NaN),
        scored.map((c) => c.esp ?? NaN),
      ])
    : new Float64Array(0);
  return scored.map((c, i) => ({ ...c, consensus: fused[i] }));
}

/** The k best by `type`, ties by the candidates' order (shard order, row order). */
export function topBy(cands: RankedCandidate[], type: RankedType, k: number): RankedCandidate[] {
  return cands
    .map((c, i) => ({ c, i, s: scoreOf(c, type) }))
    .sort((a, b) => b.s - a.s || a.i - b.i)
    .slice(0, k)
    .map((x) => x.c);
}

/** The value an ordering sorts by (descending). Dissimilarity: 3D score minus Morgan Tanimoto. */
export function orderingKey(c: RankedCandidate, ordering: OrderingName, primary: RankedType): number {
  if (ordering === 'Similarity') return scoreOf(c, primary);
  if (ordering === 'Morgan Tanimoto') return c.morgan;
  if (ordering === 'Shapesim Dissimilarity') return missing(c.shape) - c.morgan;
  return missing(c.esp) - c.morgan;
}

/**
 * Applies the orderings to the result rows: the first ordering is the primary key, each next one
 * breaks the ties of those before; rows equal under every key keep their rank.
 */
export function applyOrderings(
  rows: RankedCandidate[],
  orderings: OrderingName[],
  primary: RankedType,
): RankedCandidate[] {
  if (!orderings.length) return rows;
  return rows
    .map((c, i) => ({ c, i, keys: orderings.map((o) => orderingKey(c, o, primary)) }))
    .sort((a, b) => {
      for (let j = 0; j < a.keys.length; j++) if (a.keys[j] !== b.keys[j]) return b.keys[j] - a.keys[j];
      return a.i - b.i;
    })
    .map((x) => x.c);
}

/** The score columns of a row: every score, plus the dissimilarities when ordered by them. */
export function scoreColumns(
  c: RankedCandidate,
  types: RankedType[],
  orderings: OrderingName[],
): Record<string, number | null> {
  const cols: Record<string, number | null> = {
    Shapesim: c.shape,
    Espsim: c.esp,
    'Morgan Tanimoto': c.morgan,
  };
  if (types.includes('consensus')) cols.Consensus = c.consensus;
  for (const o of orderings)
    if (THREE_D_ORDERINGS.includes(o)) {
      const v = orderingKey(c, o, types[0]);
      cols[o] = Number.isFinite(v) ? v : null;
    }
  return cols;
}
