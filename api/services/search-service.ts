/**
 * The search capability as the HTTP layers see it. Legacy routes and v2 routes are thin adapters
 * over this one service; the implementation (catalog-search.ts) drives the engine.
 */
import type { PendingDatabase } from './pending-databases.ts';

export const SEARCH_TYPES = ['morgan', 'espsim_electrostatic', 'espsim_shape', 'synthongpt'] as const;
export type SearchType = (typeof SEARCH_TYPES)[number];

export const SEARCH_QUALITIES = ['fast', 'accurate', 'very_accurate', '100', '1000', '10000'] as const;
export type SearchQuality = (typeof SEARCH_QUALITIES)[number];

/** Legacy filters: every value the interface names; AVAILABLE_FILTERS are the ones served now. */
export const FILTERS = [
  'No solvents',
  'Lipinsky',
  'QED',
  'PAINS',
  'Substructure',
  'Superstructure',
  'Murcko scaffold hop',
  'Regioisomers',
  'No rare atoms',
] as const;
export type FilterName = (typeof FILTERS)[number];

export const ORDERINGS = [
  'Similarity',
  'Morgan Tanimoto',
  'Shapesim Dissimilarity',
  'Espsim Dissimilarity',
] as const;
export type OrderingName = (typeof ORDERINGS)[number];

/** Score key that each search type adds to a neighbour row, besides `similarity`. */
export const METRIC_KEYS: Record<SearchType, string> = {
  morgan: 'Morgan Tanimoto',
  espsim_shape: 'Shape Similarity',
  espsim_electrostatic: 'Electrostatic Similarity',
  synthongpt: 'Synthon Score',
};

export interface DatabaseInfo {
  id: string;
  name: string;
  vendor: string;
  website: string;
  contact: string;
  release: string;
  kind: 'enumerated' | 'synthon';
  molecules: number;
  searchTypes: SearchType[];
  hasPredictions: boolean;
  license?: string;
  source?: string;
}

export type NeighborRow = {
  smiles: string;
  id: string;
  database: string;
  db_id: string;
  similarity: number;
} & Record<string, string | number | boolean | null | SynthonRef[]>;

/** One synthon of a synthon-space product (a `/molsearch` row's `synthons`, as in v2 hits and job pages). */
export interface SynthonRef {
  slot: number;
  synthon_id: string;
  smiles: string;
}

export interface SimilarityRequest {
  smiles: string;
  dbNames: string[];
  k: number;
  descriptors: boolean;
  properties: boolean;
  /** Legacy filters to apply (already validated against what is available). */
  filters: FilterName[];
  ordering: OrderingName[];
}

export interface SimilarityResult {
  canonical: string;
  rows: NeighborRow[];
  remarks: string[];
  /** Set when some shards of a fleet catalog did not answer in time (code partial_coverage). */
  warnings?: { code: string; message: string }[];
  /** Share of the searched molecules that answered (fleet searches only). */
  coverage?: number;
}

export interface SearchService {
  databases(): DatabaseInfo[];
  /**
   * Why database `id` is not in databases() yet, when it is coming (a synthon space still being
   * built in the background, or whose build failed); undefined for a name nothing knows.
   */
  notReady?(id: string): string | undefined;
  /** The databases notReady names as coming, for the listings (not in databases() yet). */
  pending?(): PendingDatabase[];
  /** The database searched when a client names none. */
  defaultDatabase(): string;
  availableFilters(): FilterName[];
  availableOrderings(): OrderingName[];
  similarity(req: SimilarityRequest): Promise<SimilarityResult>;
  /** One result per input SMILES, in input order. */
  batch(req: Omit<SimilarityRequest, 'smiles'> & { smiles: string[] }): Promise<SimilarityResult[]>;
  /** Neighbours of the mean fingerprint of the inputs. */
  centroid(
    req: Omit<SimilarityRequest, 'smiles'> & { smiles: string[] },
  ): Promise<SimilarityResult & { canonicalInputs: string[] }>;
  /**
   * Neighbours of a given Morgan embedding (2048 numbers): a 0/1 vector by exact Tanimoto, any
   * other by the continuous Tanimoto of the centroid search. A 422 names `embedding` when the
   * vector is not usable.
   */
  byEmbedding(
    req: Omit<SimilarityRequest, 'smiles'> & { vector: ArrayLike<number> },
  ): Promise<SimilarityResult>;
  /**
   * Every value of a numeric catalog column (descriptor, price, ADMET prediction) of a database,
   * NaN for nulls; undefined for an unknown database. A 422 names `properties` for other columns.
   */
  propertyValues(dbName: string, column: string): Float64Array | undefined;
  random(n: number, seed?: number): Promise<{ smiles: string; id: string; database: string }[]>;
  ready(): boolean;
}
