/**
 * One slice of a synthon job (`/submit_synthongpt_job`): a search restricted to some reactions of
 * a space, so a job fans out over reactions and merges the slices' hits (best `k` by similarity,
 * then product id). Modes:
 * - similarity: the exact Morgan top `k` of the slice (similarityTopK: falling thresholds down
 *   to 0, so a dissimilar query still gets its k best, or down to the job's `floor`), with the SMARTS prefilter applied to the exactly scored hits (the top `k` is
 *   widened until `k` products pass, so the filtered top `k` is still exact);
 * - substructure / superstructure: every product of the slice that contains the query / that the
 *   query contains, by assembling each tuple whose heavy-atom count allows it (bounded by
 *   `maxProducts` and `timeoutMs`), scored by Morgan Tanimoto to the query when it is a molecule.
 * `matchMode` `exact` matches chirality too; `fuzzy` does not (RDKit's default).
 */
import type { RDKitModule, RDKitMol } from '../chem/rdkit.ts';
import { MORGAN_DETAILS, tanimoto } from '../chem/fingerprint.ts';
import { assembleWith } from './assemble.ts';
import type { SpaceHit } from './similarity.ts';
import { similarityTopK } from './similarity-topk.ts';
import { reactionTuples, tupleId, tupleSmiles, type OpenSpace } from './space.ts';

export const SYNTHON_JOB_MODES = ['similarity', 'substructure', 'superstructure'] as const;
export type SynthonJobMode = (typeof SYNTHON_JOB_MODES)[number];

export interface SynthonJobSlice {
  mode: SynthonJobMode;
  /** SMILES (similarity, superstructure) or SMARTS/SMILES (substructure). */
  query: string;
  /** Reaction ids of the slice. */
  reactions: readonly string[];
  /** Hits wanted. */
  k: number;
  matchMode: 'fuzzy' | 'exact';
  prefilter?: { smarts: string; mode: 'include' | 'exclude' };
  /**
   * Similarity: products below this Tanimoto are not wanted (other slices of the job already hold
   * k products at or above it, so none below can reach the job's top k); default 0.
   */
  floor?: number;
  /** Structure modes: tuples assembled at most (default 2,000,000). */
  maxProducts?: number;
  timeoutMs?: number;
}

export interface SynthonJobSliceResult {
  hits: SpaceHit[];
  /** Products assembled and checked (structure modes) or exactly scored (similarity). */
  examined: number;
  invalid: number;
  /** Hits the SMARTS prefilter removed. */
  prefiltered: number;
  timedOut: boolean;
}

/** A query molecule from SMARTS, else SMILES; undefined when neither parses. */
export function queryMol(rd: RDKitModule, text: string, smartsFirst: boolean): RDKitMol | undefined {
  const tries = smartsFirst ? [rd.get_qmol, rd.get_mol] : [rd.get_mol];
  for (const parse of tries) {
    let m: RDKitMol | null = null;
    try {
      m = parse.call(rd, text.trim());
    } catch {
      m = null;
    }
    if (m?.is_valid()) return m;
    m?.delete();
  }
  return undefined;
}

function morgan(mol: RDKitMol): Uint8Array {
  return new Uint8Array(mol.get_morgan_fp_as_uint8array(MORGAN_DETAILS) as Uint8Array);
}

const matchDetails = (exact: boolean) => JSON.stringify({ useChirality: exact });

/**
 * Told how far a slice got, 0..1 (structure modes: tuples visited of the slice's products), every
 * 256 tuples: cheap enough to call from the inner loop. Similarity slices do not report (their
 * threshold walk has no cheap measure of the work left).
 */
export type SliceProgress = (fraction: number) => void;

/** Runs one slice; throws an Error naming the field when the query or the SMARTS does not parse. */
export function synthonJobSlice(
  rd: RDKitModule,
  space: OpenSpace,
  req: SynthonJobSlice,
  onProgress?: SliceProgress,
): SynthonJobSliceResult {
  const filter = req.prefilter?.smarts.trim() ? queryMol(rd, req.prefilter.smarts, true) : undefined;
  if (req.prefilter?.smarts.trim() && !filter)
    throw new Error('smarts_prefilter_pattern_smarts: not a valid SMARTS');
  const details = matchDetails(req.matchMode === 'exact');
  // Whether a product passes the prefilter (include: it matches; exclude: it does not).
  const passes = (mol: RDKitMol): boolean => {
    if (!filter) return true;
    const m = JSON.parse(mol.get_substruct_match(filter, details)) as { atoms?: number[] };
    return !!m.atoms?.length === (req.prefilter!.mode === 'include');
  };
  try {
    return req.mode === 'similarity'
      ? similaritySlice(rd, space, req, filter ? passes : undefined)
      : structureSlice(rd, space, req, passes, details, onProgress);
  } finally {
    filter?.delete();
  }
}

function similaritySlice(
  rd: RDKitModule,
  space: OpenSpace,
  req: SynthonJobSlice,
  passes: ((mol: RDKitMol) => boolean) | undefined,
): SynthonJobSliceResult {
  const mol = queryMol(rd, req.query, false);
  if (!mol) throw new Error('search_input: not a valid SMILES');
  const fp = morgan(mol);
  mol.delete();
  const start = performance.now();
  const left = () =>
    req.timeoutMs === undefined ? undefined : Math.max(0, req.timeoutMs - (performance.now() - start));
  let examined = 0;
  let invalid = 0;
  // One pass, unless products repeat (two routes to one molecule: kept once, its best route) or
  // the prefilter removes some: then the unfiltered top k' holds the wanted k once k of its
  // distinct products pass (or it holds every product above the floor).
  for (let want = req.k; ; want *= 4) {
    const res = similarityTopK(rd, space, fp, want, {
      reactions: req.reactions,
      timeoutMs: left(),
      floor: req.floor,
    });
    examined += res.counts.assembled;
    invalid += res.counts.invalid;
    const seen = new Set<string>();
    const kept: SpaceHit[] = [];
    let prefiltered = 0;
    for (const h of res.hits) {
      if (seen.has(h.smiles)) continue;
      seen.add(h.smiles);
      if (passes && !passesSmiles(rd, h.smiles, passes)) prefiltered++;
      else kept.push(h);
    }
    const exhausted = res.hits.length < want || res.timedOut || want >= 1_000_000;
    if (kept.length >= req.k || exhausted)
      return {
        hits: kept.slice(0, req.k),
        examined,
        invalid,
        prefiltered,
        timedOut: res.timedOut || (want >= 1_000_000 && kept.length < req.k),
      };
  }
}

function passesSmiles(rd: RDKitModule, smiles: string, passes: (mol: RDKitMol) => boolean): boolean {
  const m = rd.get_mol(smiles);
  try {
    return !!m?.is_valid() && passes(m);
  } finally {
    m?.delete();
  }
}

function structureSlice(
  rd: RDKitModule,
  space: OpenSpace,
  req: SynthonJobSlice,
  passes: (mol: RDKitMol) => boolean,
  details: string,
  onProgress?: SliceProgress,
): SynthonJobSliceResult {
  const sub = req.mode === 'substructure';
  const q = queryMol(rd, req.query, sub);
  if (!q) throw new Error(`search_input: not a valid ${sub ? 'SMARTS or SMILES' : 'SMILES'}`);
  // A SMILES query scores hits by Morgan Tanimoto; a SMARTS-only query gives every hit 1.
  const qMol = queryMol(rd, req.query, false);
  const qFp = qMol ? morgan(qMol) : undefined;
  const qAtoms = (qMol ?? q).get_num_atoms(true);
  qMol?.delete();
  const maxProducts = req.maxProducts ?? 2_000_000;
  const deadline = performance.now() + (req.timeoutMs ?? Infinity);
  const hits: SpaceHit[] = [];
  let examined = 0;
  let invalid = 0;
  let prefiltered = 0;
  let timedOut = false;
  // Tuples visited (pruned by size or not) of all the slice's products: the slice's progress.
  const total = space.reactions.reduce(
    (n, x) => n + (req.reactions.includes(x.info.id) ? x.info.products : 0),
    0,
  );
  let visited = 0;
  try {
    outer: for (let r = 0; r < space.reactions.length; r++) {
      const reaction = space.reactions[r];
      if (!req.reactions.includes(reaction.info.id)) continue;
      const slots = reaction.slots;
      for (const t of reactionTuples(space, r)) {
        if (onProgress && ++visited % 256 === 0) onProgress(visited / Math.max(1, total));
        const heavy = t.synthons.reduce((n, i, s) => n + slots[s].heavyAtoms[i], 0);
        if (sub ? heavy < qAtoms : heavy > qAtoms) continue;
        if (examined >= maxProducts || (examined % 256 === 0 && performance.now() > deadline)) {
          timedOut = true;
          break outer;
        }
        examined++;
        const smiles = tupleSmiles(space, t);
        const hit = assembleWith(rd, smiles, (mol, productSmiles) => {
          const m = JSON.parse(
            sub ? mol.get_substruct_match(q, details) : q.get_substruct_match(mol, details),
          ) as { atoms?: number[] };
          if (!m.atoms?.length) return null;
          if (!passes(mol)) return 'filtered' as const;
          return { productSmiles, similarity: qFp ? tanimoto(qFp, morgan(mol)) : 1 };
        });
        if (hit === undefined) invalid++;
        else if (hit === 'filtered') prefiltered++;
        else if (hit)
          hits.push({
            productId: tupleId(space, t),
            smiles: hit.productSmiles,
            similarity: hit.similarity,
            reactionId: reaction.info.id,
            synthons: t.synthons.map((i, s) => ({
              slot: s,
              synthonId: slots[s].synthonIds[i],
              smiles: slots[s].smiles[i],
            })),
          });
      }
    }
  } finally {
    q.delete();
  }
  hits.sort(compareHits);
  return { hits: hits.slice(0, req.k), examined, invalid, prefiltered, timedOut };
}

/** Job order of hits: similarity descending, then product id. */
export function compareHits(a: SpaceHit, b: SpaceHit): number {
  return b.similarity - a.similarity || (a.productId < b.productId ? -1 : a.productId > b.productId ? 1 : 0);
}
