/**
 * The contract of the 3D search service (shape-search.ts implements it): the 3D types it serves,
 * its first-stage shortlist sizes by search quality, its requests and its interface.
 */
import type { Molecule3d } from '../../engine/catalog/three-d-schema.ts';
import type { Score3d, ShapeMetric } from '../../engine/shape/index.ts';
import type { FilterName, OrderingName, SimilarityResult } from './search-service.ts';
import type { RankedType } from './shape-rank.ts';
import type { FirstStageMetric } from './shape-candidates.ts';
import type { ShapeRerank } from './shape-rerank.ts';
import type { ShapeObjectives } from './shape-objectives.ts';
import type { EmbeddedShortlist } from './query-embedder.ts';

export const THREE_D_TYPES = ['espsim_shape', 'espsim_electrostatic'] as const;
export type ThreeDType = (typeof THREE_D_TYPES)[number];

/**
 * Shortlist rows of `fast` and `accurate` per first-stage ranking (bench/shape/README.md, recall per
 * search quality, on the bundled ChEMBL drugs): the shape grid keeps 0.93 of the exact
 * (grid-rescored) shape top 30 within 200 rows and all of it within 1,000. The ESP top 30 is much
 * harder to foresee (which of several near-equal shape poses wins decides the ESP taken there): the
 * ESP pre-stage (engine/shape/esp-prescreen.ts: the pose-aware charge grid's best 2 × rows,
 * rescored by espsim's ESP at the near-best shape start poses) keeps 0.914 of it within 400 rows
 * (the charge grid alone: 0.78 within 300), and `accurate` takes 2,000.
 */
export const SHORTLIST_ROWS: Record<'fast' | 'accurate', Record<FirstStageMetric, number>> = {
  fast: { shape: 200, esp: 400 },
  accurate: { shape: 1000, esp: 2000 },
};

/** Shortlist sizes of the first stage by `search_quality`; `very_accurate` scores every row. */
export function shortlistSize(
  quality: string | undefined,
  k: number,
  metric: FirstStageMetric = 'shape',
): number {
  if (quality === 'very_accurate' || quality === 'very accurate') return Infinity;
  const n = /^\d+$/.test(quality ?? '')
    ? Number(quality)
    : SHORTLIST_ROWS[quality === 'accurate' ? 'accurate' : 'fast'][metric];
  return Math.max(n, k);
}

/** At most this many inputs to a 3D centroid: each one is embedded and scores the whole shortlist. */
export const MAX_CENTROID_3D_INPUTS = 10;

export interface ShapeSearchRequest {
  smiles: string;
  dbNames: string[];
  k: number;
  /** The first type ranks the rows (`similarity`); every row carries every score column. */
  types: RankedType[];
  /** Legacy orderings of the result rows (default: by the first type's score). */
  ordering?: OrderingName[];
  quality?: string;
  descriptors: boolean;
  /** The 22 ADMET predictions and admet_out_of_domain, as the Morgan path adds them (default false). */
  properties?: boolean;
  /** The legacy result filters, as on the Morgan path (docs/filters.md). */
  filters?: FilterName[];
  /** Where the query came from, for a 422 when it cannot be embedded (default query.search_input). */
  loc?: (string | number)[];
}

export interface ShapeCentroidRequest {
  smiles: string[];
  dbNames: string[];
  k: number;
  type: ThreeDType;
  quality?: string;
}

/** One molecule in 3D with its first-stage descriptors (60 floats per conformer), or why not. */
export type Embedded3d =
  { ok: true; molecule: Molecule3d; descriptors: Float32Array } | { ok: false; reason: string };

export interface ShapeSearchService {
  /** The 3D-ready database a 3D request without `db_names` searches (largest ready), or undefined. */
  defaultDatabase(): Promise<string | undefined>;
  /** 4xx naming `loc` (default query.db_names) unless every database is 3D-ready (with its progress). */
  checkReady(dbNames: string[], loc?: (string | number)[]): Promise<void>;
  search(req: ShapeSearchRequest): Promise<SimilarityResult>;
  /** Several queries, one ranking: each row scores the mean of its scores against every query. */
  centroid(req: ShapeCentroidRequest): Promise<SimilarityResult>;
  /** Proposal + exact rerank of one catalog (POST /api/v2/search_cheese). */
  rerank: ShapeRerank;
  /** Candidates and exact scores of the 3D objectives of a v2 selection. */
  objectives: ShapeObjectives;
  /**
   * The query in 3D (the chem3d worker's conformers, for callers that pass them on instead of
   * embedding again); 422 naming `loc` when the worker cannot embed `smiles`, 503 when none answers.
   */
  checkQuery(smiles: string, loc?: (string | number)[]): Promise<Molecule3d>;
  /**
   * Each SMILES embedded by the chem3d worker (the catalog's recipe) with its first-stage
   * descriptors; an unembeddable one gets its reason. 503 (`unavailable`) when no worker answers.
   * Not embedShortlist: the analysis embeddings owe every molecule an answer (no budget, no null),
   * without RDKit's per-molecule time-out, fail fast when no worker polls, and share the query
   * embeddings' cache (a molecule embeds to the conformers it gets as a query).
   */
  embedMany(smiles: string[], loc: (string | number)[]): Promise<Embedded3d[]>;
  /**
   * A synchronous request's shortlist embedded by the chem3d worker in batches within `budgetMs`
   * (QueryEmbedder.embedShortlist): per molecule its conformers, its reason, or null when the
   * budget ran out first. No descriptors: the exact stage does not need them.
   */
  embedShortlist(smiles: string[], opts: { budgetMs: number; confs: number }): Promise<EmbeddedShortlist>;
  /**
   * Molecules embedded by embedShortlist scored against the query by the exact stage on the shape
   * pool's threads (engine/shape scoreEmbedded: a null molecule keeps a null score).
   */
  scoreEmbedded(query: Molecule3d, molecules: (Molecule3d | null)[], metric: ShapeMetric): Promise<Score3d[]>;
  /**
   * The first stage alone for a given descriptor vector (60 floats per conformer, one or more
   * conformers): the k rows of 3D-ready databases with the best first-stage similarity.
   */
  searchDescriptors(req: {
    vector: Float32Array;
    dbNames: string[];
    k: number;
    descriptors: boolean;
    properties?: boolean;
  }): Promise<SimilarityResult>;
}
