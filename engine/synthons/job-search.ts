/**
 * One slice of a synthon job (`/submit_synthongpt_job`): a search restricted to some reactions of
 * a space, so a job fans out over reactions and merges the slices' hits (best `k` by similarity,
 * then product id). Modes:
 * - similarity: the exact Morgan top `k` of the slice (similarityTopK: falling thresholds down
 *   to 0, so a dissimilar query still gets its k best, or down to the job's `floor`), with the SMARTS prefilter applied to the exactly scored hits (the top `k` is
 *   widened until `k` products pass, so the filtered top `k` is still exact);
 * - substructure / superstructure: the products of the slice that contain the query / that the
 *   query contains, found by the space's screened search (substructure.ts; bounded by `maxHits`,
 *   `maxProducts` and `timeoutMs`), scored by Morgan Tanimoto to the query when it is a molecule.
 * `matchMode` `exact` matches chirality too; `fuzzy` does not (RDKit's default).
 */
import { isWasmTrap, type RDKitModule, type RDKitMol } from '../chem/rdkit.ts';
import { MORGAN_DETAILS, tanimoto } from '../chem/fingerprint.ts';
import type { SpaceHit } from './similarity.ts';
import { similarityTopK } from './similarity-topk.ts';
import type { OpenSpace } from './space.ts';
import { substructureSearch, type StructureMode, type SubstructureHit } from './substructure.ts';

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
  /** Structure modes: verified hits ranked at most (default `structureHitCap(k)`). */
  maxHits?: number;
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
  /**
   * Structure modes: a reaction reached its share of the slice's hit cap (`maxHits`), so more hits
   * exist than were ranked; the time and product limits are `timedOut`.
   */
  hitCapReached?: boolean;
}

/** A query molecule from SMARTS, else SMILES; undefined when neither parses. */
export function queryMol(rd: RDKitModule, text: string, smartsFirst: boolean): RDKitMol | undefined {
  const tries = smartsFirst ? [rd.get_qmol, rd.get_mol] : [rd.get_mol];
  for (const parse of tries) {
    let m: RDKitMol | null = null;
    try {
      m = parse.call(rd, text.trim());
    } catch (err) {
      // A trap leaves RDKit unusable: rethrown, so the pool retires this thread (threads/pool.ts)
      // instead of every later slice reading as an invalid query.
      if (isWasmTrap(err)) throw err;
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
      : structureSlice(rd, space, req, passes, onProgress);
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

/**
 * Structure modes: the space's own search (substructure.ts: fragment screens, then assembly and
 * verification of the candidates) per reaction of the slice, each hit scored and kept while it is
 * among the slice's best `k`. A query with more hits than anyone can rank (`C(=O)N` has hundreds
 * of millions in the 10^9 space) is bounded by `maxHits` verified hits a slice, shared evenly by
 * its reactions so every reaction contributes, and then says so (`hitCapReached`).
 */
function structureSlice(
  rd: RDKitModule,
  space: OpenSpace,
  req: SynthonJobSlice,
  passes: (mol: RDKitMol) => boolean,
  onProgress?: SliceProgress,
): SynthonJobSliceResult {
  const sub = req.mode === 'substructure';
  const query = req.query.trim();
  const q = queryMol(rd, query, sub);
  if (!q) throw new Error(`search_input: not a valid ${sub ? 'SMARTS or SMILES' : 'SMILES'}`);
  q.delete();
  // A SMILES query scores hits by Morgan Tanimoto; a SMARTS-only query gives every hit 1.
  const qMol = queryMol(rd, query, false);
  const qFp = qMol ? morgan(qMol) : undefined;
  qMol?.delete();
  const reactions = space.reactions.filter((x) => req.reactions.includes(x.info.id));
  const total = reactions.reduce((n, x) => n + x.info.products, 0);
  const perReaction = Math.max(1, Math.ceil((req.maxHits ?? structureHitCap(req.k)) / reactions.length));
  const deadline = Date.now() + (req.timeoutMs ?? Infinity);
  let productsLeft = req.maxProducts ?? 2_000_000;
  const best = bestHits(req.k);
  let examined = 0;
  let invalid = 0;
  let prefiltered = 0;
  let timedOut = false;
  let hitCapReached = false;
  let done = 0;
  for (const reaction of reactions) {
    if (productsLeft <= 0 || Date.now() > deadline) {
      timedOut = true;
      break;
    }
    let found = 0;
    const res = substructureSearch(rd, space, query, {
      mode: req.mode as StructureMode,
      reactions: new Set([reaction.info.id]),
      maxHits: perReaction,
      maxProducts: productsLeft,
      deadline,
      chirality: req.matchMode === 'exact',
      onHit: (h) => {
        found++;
        const scored = scoreHit(rd, h, qFp, passes);
        if (scored === 'filtered') prefiltered++;
        else if (scored) best.add(scored);
      },
    });
    examined += res.examined;
    invalid += res.invalid;
    productsLeft -= res.examined;
    timedOut ||= res.timedOut;
    hitCapReached ||= found >= perReaction;
    done += reaction.info.products;
    onProgress?.(done / Math.max(1, total));
  }
  return {
    hits: best.list(),
    examined,
    invalid,
    prefiltered,
    timedOut,
    ...(hitCapReached ? { hitCapReached } : {}),
  };
}

/** Verified hits a structure slice ranks at most: ten times the wanted hits, 10,000 to 1,000,000. */
export function structureHitCap(k: number): number {
  return Math.min(1_000_000, Math.max(10_000, 10 * k));
}

/** A verified hit scored against the query, or 'filtered' by the prefilter (null: unparsable). */
function scoreHit(
  rd: RDKitModule,
  h: SubstructureHit,
  qFp: Uint8Array | undefined,
  passes: (mol: RDKitMol) => boolean,
): SpaceHit | 'filtered' | null {
  const mol = rd.get_mol(h.smiles);
  try {
    if (!mol?.is_valid()) return null;
    if (!passes(mol)) return 'filtered';
    const { productId, smiles, reactionId, synthons } = h;
    return { productId, smiles, reactionId, synthons, similarity: qFp ? tanimoto(qFp, morgan(mol)) : 1 };
  } finally {
    mol?.delete();
  }
}

/** The best `k` hits seen (job order, one per molecule), pruned as they come: memory stays O(k). */
function bestHits(k: number) {
  let list: SpaceHit[] = [];
  const prune = () => {
    list.sort(compareHits);
    const seen = new Set<string>();
    list = list.filter((h) => !seen.has(h.smiles) && !!seen.add(h.smiles)).slice(0, k);
  };
  return {
    add(h: SpaceHit) {
      list.push(h);
      if (list.length >= 2 * k + 64) prune();
    },
    list(): SpaceHit[] {
      prune();
      return list;
    },
  };
}

/** Job order of hits: similarity descending, then product id. */
export function compareHits(a: SpaceHit, b: SpaceHit): number {
  return b.similarity - a.similarity || (a.productId < b.productId ? -1 : a.productId > b.productId ? 1 : 0);
}
