/**
 * What the v2 search capabilities share (v2-search.ts, v2-catalog.ts, v2-substructure.ts and the
 * synthon-space wrappers): the request shapes the route schemas validate, the service's
 * dependencies, and the row helpers every answer is built with.
 */
import type { ThreeDStatusService } from './three-d-status.ts';
import type { CheeseScorer, ShapeRerank } from './shape-rerank.ts';
import { invalidSmiles } from '../../platform/errors.ts';
import { DESCRIPTOR_NAMES, getRDKit, parseMolecule, type ParsedMolecule } from '../../engine/chem/index.ts';
import type { Library, LibraryRegistry } from '../../engine/selection/index.ts';
import type { SubstructureRunner } from '../../engine/substructure/index.ts';
import type { FleetLibraries } from './fleet-libraries.ts';
import type { PendingDatabase } from './pending-databases.ts';

export const ENGINE_VERSION = 'molsearch-engine/1';

export interface V2SearchServiceDeps {
  libraries: LibraryRegistry;
  substructure: SubstructureRunner;
  /** 3D readiness per database (absent: reported as null). */
  threeD?: ThreeDStatusService;
  /** Catalog reranking for search_cheese (absent: capability_unavailable). */
  rerank?: ShapeRerank;
  /** Catalogs the scan fleet answers (FLEET_SEARCH): `search` fans out, the rest is unavailable. */
  fleet?: FleetLibraries;
  /**
   * The synthon spaces (served by withV2Spaces before this service sees a request): named in the
   * unknown-database 422, and a space still being built answers why it is not there yet.
   */
  spaces?: {
    ids(): string[];
    notReady(id: string): string | undefined;
    /** The spaces still being built (or whose build failed), named in "unknown database" errors. */
    pending?(): PendingDatabase[];
  };
}

/** The interface's default shortlist multiplier (proposed rows = limit × multiplier). */
export const DEFAULT_SHORTLIST_MULTIPLIER = 10;

export interface SearchRequest {
  query_smiles: string;
  database_id: string;
  limit: number;
  include_synthons: boolean;
  include_properties: boolean;
}
export interface CheeseRequest {
  query_smiles: string;
  database_id: string;
  scorer: CheeseScorer;
  limit: number;
  shortlist_multiplier?: number;
  include_properties?: boolean;
}
export interface SubstructureRequest {
  query?: { format: 'smarts' | 'smiles'; value: string };
  query_smiles?: string;
  database_id: string;
  limit: number;
  timeout_seconds: number;
  include_synthons: boolean;
  /** superstructure: synthon spaces only (a catalog answers a 422 naming it). */
  search_mode?: 'substructure' | 'superstructure';
}
export interface SampleRequest {
  database_id: string;
  count: number;
  seed?: number;
  include_synthons: boolean;
  include_properties: boolean;
  /** Only route_product_tuple, the one method (the route refuses any other value). */
  sampling_method?: 'route_product_tuple';
}

/**
 * The property and ADMET counts of a search_cheese answer, all zero: no path offers property
 * constraints or ADMET acquisition yet, and the interface's clients read every count.
 */
export const NO_PROPERTY_DROPS = {
  exact_constraint_dropped: 0,
  exact_property_dropped: 0,
  additive_property_dropped: 0,
  property_approximation_unavailable: 0,
  admet_acquisition_dropped: 0,
  admet_out_of_domain: 0,
} as const;

export const round3 = (ms: number) => Math.round(ms * 1000) / 1000;
/**
 * A hit's values by name, those that have one: the contract's maps hold numbers, and the released
 * SDK's `Hit.properties` / `predicted_properties` (dict[str, float]) refuse a null, so a value
 * that could not be computed is left out rather than sent as null.
 */
const numbers = (lib: Library, row: number, names: readonly string[]) =>
  Object.fromEntries(
    names.flatMap((n) => {
      const v = lib.column(n)?.[row];
      return v === undefined || Number.isNaN(v) ? [] : [[n, v]];
    }),
  );
export const properties = (lib: Library, row: number) => numbers(lib, row, DESCRIPTOR_NAMES);
export const predicted = (lib: Library, row: number) => numbers(lib, row, lib.info.predicted_property_ids);
export const synthonsOf = (include: boolean) => (include ? { synthons: [] as unknown[] } : {});

/** Parses a query SMILES or throws invalid_smiles naming the field. */
export async function parseQuery(
  smiles: string,
  loc: (string | number)[] = ['body', 'query_smiles'],
): Promise<ParsedMolecule> {
  const p = parseMolecule(await getRDKit(), smiles);
  if ('error' in p) throw invalidSmiles(loc, smiles, `SMILES (${p.error})`);
  return p;
}
