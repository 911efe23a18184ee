/**
 * The exact stage: a query scored against a shortlist of candidates by 3D alignment. Each candidate
 * (probe) is aligned onto the query (reference) by Gaussian shape overlap, best over conformer
 * pairs; the best refined poses are rescored with espsim's shape function (1 − RDKit's grid
 * ShapeTanimotoDist, heavy atoms) and the best of them kept, with espsim's ESP Carbo (hydrogens
 * included) at that pose, as espsim's EmbedAlignScore scores its best-shape pose. Results are sorted by the requested metric and cut to k.
 */
import { DomainError } from '../../platform/errors.ts';
import { alignShapes, bestGridPose, espAtAlignment, type AlignOptions } from './align.ts';
import { checkConformerSet, type ConformerSet } from './conformers.ts';
import type { EspMetric } from './esp.ts';
import { prepareShape, type PreparedShape } from './frame.ts';

export const SHAPE_METRICS = ['shape', 'esp'] as const;
export type ShapeMetric = (typeof SHAPE_METRICS)[number];

export interface ScoreShortlistOptions {
  metric: ShapeMetric;
  /** How many of the best candidates to return (all when larger than the shortlist). */
  k: number;
  align?: AlignOptions;
  /** Hydrogens carry Gaussians in the shape score too (default: heavy atoms, like espsim's grid). */
  hydrogens?: boolean;
  espMetric?: EspMetric;
}

export interface ScoredCandidate {
  /** Index into the candidates array. */
  index: number;
  /**
   * espsim's shape similarity of the best pose, in [0, 1]: RDKit's grid shape Tanimoto (what
   * `1 − ShapeTanimotoDist` gives), which tracks espsim's scores closer than the Gaussian one
   * (bench/shape/README.md).
   */
  shape: number;
  /** The Gaussian shape Tanimoto of that pose (the alignment's objective), in [0, 1]. */
  gaussian: number;
  /** ESP similarity at that pose (Carbo in [-1, 1] by default). */
  esp: number;
  queryConf: number;
  candidateConf: number;
  /** Maps the candidate conformer's coordinates onto the query's (see Alignment.transform). */
  transform: Float64Array;
}

export function checkScoreOptions(opts: ScoreShortlistOptions): void {
  const issues = [];
  if (!SHAPE_METRICS.includes(opts.metric))
    issues.push({ loc: ['metric'], msg: `metric must be one of ${SHAPE_METRICS.join(', ')}`, type: 'enum' });
  if (!Number.isInteger(opts.k) || opts.k < 1)
    issues.push({ loc: ['k'], msg: 'k must be a positive integer', type: 'value_error' });
  if (issues.length)
    throw new DomainError('validation_error', issues.map((i) => i.msg).join('; '), { issues });
}

/** Scores `candidates` against `query`; throws a validation_error naming the field on bad input. */
export function scoreShortlist(
  query: ConformerSet | PreparedShape,
  candidates: readonly ConformerSet[],
  opts: ScoreShortlistOptions,
): ScoredCandidate[] {
  checkScoreOptions(opts);
  const h = opts.hydrogens ?? false;
  let ref: PreparedShape;
  if ('confs' in query && query.hydrogens === h) ref = query;
  else {
    const set = 'confs' in query ? query.set : query;
    checkConformerSet(set, ['query']);
    ref = prepareShape(set, h);
  }
  candidates.forEach((c, i) => checkConformerSet(c, ['candidates', i]));
  const out: ScoredCandidate[] = candidates.map((c, index) => {
    const probe = prepareShape(c, h);
    const a = alignShapes(ref, probe, opts.align);
    const { pose, shape } = bestGridPose(ref, probe, a);
    return {
      index,
      shape,
      gaussian: pose.shape,
      esp: espAtAlignment(ref, probe, pose, opts.espMetric),
      queryConf: pose.refConf,
      candidateConf: pose.probeConf,
      transform: pose.transform,
    };
  });
  const key = opts.metric;
  out.sort((x, y) => y[key] - x[key] || x.index - y.index);
  return out.slice(0, opts.k);
}
