/**
 * The synchronous v2 capabilities over the served libraries: the catalog listing, Morgan
 * similarity search, cheese reranking (shape, electrostatic, Morgan) of catalogs, substructure search on
 * its own thread, and seeded samples. Bodies arrive validated by the route schemas (types, ranges,
 * defaults); this service judges what needs the libraries or RDKit.
 */
import type { ThreeDStatusService } from './three-d-status.ts';
import { CHEESE_METRICS, type CheeseScorer, type ShapeRerank } from './shape-rerank.ts';
import { DomainError, invalidSmiles, validationError } from '../../platform/errors.ts';
import {
  DESCRIPTOR_NAMES,
  getRDKit,
  parseMolecule,
  tanimoto,
  type ParsedMolecule,
} from '../../engine/chem/index.ts';
import { sampleIndices, type Library, type LibraryRegistry } from '../../engine/selection/index.ts';
import { isValidQuery, type SubstructureRunner } from '../../engine/substructure/index.ts';
import { requestLimits } from './request-limits.ts';

export const ENGINE_VERSION = 'molsearch-engine/1';

export interface V2SearchServiceDeps {
  libraries: LibraryRegistry;
  substructure: SubstructureRunner;
  /** 3D readiness per database (absent: reported as null). */
  threeD?: ThreeDStatusService;
  /** Catalog reranking for search_cheese (absent: capability_unavailable). */
  rerank?: ShapeRerank;
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
}
export interface SampleRequest {
  database_id: string;
  count: number;
  seed?: number;
  include_synthons: boolean;
  include_properties: boolean;
}

const round3 = (ms: number) => Math.round(ms * 1000) / 1000;
const properties = (lib: Library, row: number) =>
  Object.fromEntries(DESCRIPTOR_NAMES.map((n) => [n, lib.column(n)?.[row] ?? null]));
const predicted = (lib: Library, row: number) =>
  Object.fromEntries(
    lib.info.predicted_property_ids.map((n) => {
      const v = lib.column(n)?.[row];
      return [n, v === undefined || Number.isNaN(v) ? null : v];
    }),
  );
const synthonsOf = (include: boolean) => (include ? { synthons: [] as unknown[] } : {});

/** Parses a query SMILES or throws invalid_smiles naming the field. */
async function parseQuery(
  smiles: string,
  loc: (string | number)[] = ['body', 'query_smiles'],
): Promise<ParsedMolecule> {
  const p = parseMolecule(await getRDKit(), smiles);
  if ('error' in p) throw invalidSmiles(loc, smiles);
  return p;
}

export function createV2SearchService(deps: V2SearchServiceDeps) {
  /** The library named `id`, or a validation_error naming the field and the available ids. */
  async function library(id: string, loc: (string | number)[] = ['body', 'database_id']): Promise<Library> {
    const lib = await deps.libraries.get(id);
    if (lib) return lib;
    const ids = (await deps.libraries.list()).map((l) => l.info.database_id);
    throw validationError(
      loc,
      `unknown database ${JSON.stringify(id)}; available: ${ids.join(', ')}`,
      'value_error.database',
    );
  }

  /** Scorers search_cheese serves on a library: morgan on every catalog, shape and esp once 3D-ready. */
  const cheeseScorers = (enumerated: boolean, ready: boolean): string[] =>
    enumerated && deps.rerank ? ['morgan', ...(ready ? ['shape', 'esp'] : [])] : [];

  return {
    /** The libraries served, with capabilities and pricing availability. */
    async catalog() {
      const libs = await deps.libraries.list();
      const threeD = await Promise.all(libs.map((l) => deps.threeD?.status(l.info.database_id) ?? null));
      return {
        libraries: libs.map((l, i) => {
          const enumerated = l.info.kind === 'enumerated';
          const priced = Array.from({ length: Math.min(l.size, 1000) }, (_, i) => l.price(i)).some(
            (p) => p !== null,
          );
          return {
            database_id: l.info.database_id,
            name: l.info.name,
            vendor: l.info.vendor,
            website: l.info.website,
            contact: l.info.contact,
            kind: l.info.kind,
            release: l.info.release,
            database_release: l.info.release,
            product_count: l.size,
            capabilities: {
              search: true,
              search_cheese: cheeseScorers(enumerated, threeD[i]?.status === 'ready'),
              search_substructure: enumerated,
              sample: true,
              selections: enumerated,
              predicted_properties: l.info.predicted_property_ids.length > 0,
            },
            pricing: { available: priced, currency: priced ? 'USD' : null },
            three_d: threeD[i] ?? null,
          };
        }),
      };
    },

    /** Morgan (ECFP4) Tanimoto k-NN. */
    async search(b: SearchRequest, requestId: string) {
      const t0 = performance.now();
      const lib = await library(b.database_id);
      const q = await parseQuery(b.query_smiles);
      const t1 = performance.now();
      const knn = await lib.knn(q.fp, b.limit, undefined, requestLimits());
      // The k-NN ranks in float32; answers carry the exact double Tanimoto of each pair (as
      // /molsearch, centroid search and selections do), re-sorted so rank follows the score.
      const exact = Array.from(knn.rows, (row) => ({ row, score: tanimoto(q.fp, lib.fingerprint(row)) }));
      exact.sort((x, y) => y.score - x.score);
      const results = exact.map(({ row, score }, i) => ({
        rank: i + 1,
        smiles: lib.smiles(row),
        score,
        product_id: lib.productId(row),
        price: lib.price(row),
        reaction_id: null,
        metric: 'rdkit.ecfp4_tanimoto',
        ...(b.include_properties
          ? { properties: properties(lib, row), predicted_properties: predicted(lib, row) }
          : {}),
        ...synthonsOf(b.include_synthons),
      }));
      const total = performance.now() - t0;
      return {
        request_id: requestId,
        database_id: lib.info.database_id,
        database_release: lib.info.release,
        scorer: 'morgan',
        metric: 'rdkit.ecfp4_tanimoto',
        engine_version: ENGINE_VERSION,
        query_smiles: q.canonicalSmiles,
        results,
        counts: { returned: results.length, scanned: lib.size },
        timing_ms: { query: round3(t1 - t0), search: round3(total - (t1 - t0)), total: round3(total) },
        warnings: [],
      };
    },

    /**
     * Exact-product reranking of a catalog (shape-rerank.ts): limit × shortlist_multiplier rows
     * proposed, every one scored exactly, the best `limit` returned as the interface's reranking
     * result. Synthon spaces are not libraries here: v2-space-search wraps this method for them.
     */
    async cheese(b: CheeseRequest, requestId: string) {
      const lib = await library(b.database_id);
      await parseQuery(b.query_smiles);
      if (!deps.rerank || lib.info.kind !== 'enumerated')
        throw new DomainError(
          'capability_unavailable',
          `search_cheese is not available on ${b.database_id} in this deployment; use POST /api/v2/search (Morgan/ECFP4)`,
        );
      const multiplier = b.shortlist_multiplier ?? DEFAULT_SHORTLIST_MULTIPLIER;
      const r = await deps.rerank({
        smiles: b.query_smiles,
        dbName: lib.info.database_id,
        scorer: b.scorer,
        limit: b.limit,
        shortlistMultiplier: multiplier,
      });
      const metric = CHEESE_METRICS[b.scorer];
      const results = r.hits.map((h, i) => ({
        rank: i + 1,
        smiles: lib.smiles(h.row),
        score: h.score,
        proposal_score: h.proposalScore,
        product_id: lib.productId(h.row),
        price: lib.price(h.row),
        reaction_id: null,
        metric,
        scores: { shape: h.shape, esp: h.esp, morgan: h.morgan },
        ...(b.include_properties
          ? { properties: properties(lib, h.row), predicted_properties: predicted(lib, h.row) }
          : {}),
      }));
      return {
        request_id: requestId,
        database_id: lib.info.database_id,
        database_release: lib.info.release,
        scorer: b.scorer,
        metric,
        engine_version: ENGINE_VERSION,
        model_version: r.modelVersion,
        query_smiles: r.canonical,
        effective_shortlist: r.effectiveShortlist,
        shortlist_multiplier: multiplier,
        exact_property_postfilter: false,
        property_constraints: {},
        property_preset: null,
        admet_acquisition_models: {},
        admet_acquisition_semantics: 'none',
        results,
        counts: {
          proposed: r.proposed,
          assembled: r.assembled,
          returned: results.length,
          invalid: 0,
          duplicate_products: 0,
          duplicate_tuples: 0,
          additive_property_dropped: 0,
          admet_acquisition_dropped: 0,
          admet_out_of_domain: 0,
          exact_constraint_dropped: 0,
          exact_property_dropped: 0,
          property_approximation_unavailable: 0,
        },
        timing_ms: r.timing,
        warnings: [],
      };
    },

    /** Substructure search (SMARTS or SMILES) with matched atoms and bonds; `deprecated` for the old path. */
    async substructure(
      b: SubstructureRequest,
      requestId: string,
      deprecated: boolean,
      ctx: { receivedAt?: number; signal?: AbortSignal } = {},
    ) {
      const t0 = performance.now();
      const deadline = (ctx.receivedAt ?? Date.now()) + b.timeout_seconds * 1000;
      const lib = await library(b.database_id);
      const query =
        b.query ?? (b.query_smiles ? { format: 'smiles' as const, value: b.query_smiles } : undefined);
      if (!query)
        throw new DomainError(
          'validation_error',
          '$.query: field required (or the deprecated query_smiles)',
          {
            issues: [{ loc: ['body', 'query'], msg: 'field required', type: 'value_error.missing' }],
          },
        );
      const bad = () =>
        invalidSmiles(
          b.query ? ['body', 'query', 'value'] : ['body', 'query_smiles'],
          query.value,
          query.format.toUpperCase(),
        );
      // Parsing takes microseconds: done here, an invalid query never waits behind running scans.
      if (!isValidQuery(await getRDKit(), query.format, query.value)) throw bad();
      const key = `${lib.info.database_id}@${lib.info.release}`;
      const r = await deps.substructure.scan(
        key,
        () => Array.from({ length: lib.size }, (_, i) => lib.smiles(i)),
        { format: query.format, query: query.value, limit: b.limit, deadline, signal: ctx.signal },
      );
      if ('invalidQuery' in r) throw bad();
      const results = r.hits.map((h, i) => ({
        rank: i + 1,
        smiles: lib.smiles(h.row),
        score: 1,
        product_id: lib.productId(h.row),
        price: lib.price(h.row),
        reaction_id: null,
        metric: 'substructure',
        matched_atom_indices: h.atoms,
        matched_bond_indices: h.bonds,
        ...synthonsOf(b.include_synthons),
      }));
      const warnings = r.timedOut
        ? [
            {
              code: 'timed_out',
              message:
                `stopped at the ${b.timeout_seconds} s deadline (queueing included) having scanned ` +
                `${r.scanned} of ${lib.size} products; results are partial`,
            },
          ]
        : [];
      if (deprecated)
        warnings.push({
          code: 'deprecated',
          message: 'POST /api/v2/substructure is deprecated; use POST /api/v2/search_substructure',
        });
      const total = performance.now() - t0;
      return {
        request_id: requestId,
        database_id: lib.info.database_id,
        database_release: lib.info.release,
        engine_version: ENGINE_VERSION,
        metric: 'substructure',
        scorer: 'substructure',
        query,
        query_smiles: query.value,
        results,
        timed_out: r.timedOut,
        coverage_fraction: lib.size ? r.scanned / lib.size : 1,
        indexed_products: lib.size,
        available_products: lib.size,
        indexed_reactions: 0,
        available_reactions: 0,
        counts: {
          returned: results.length,
          native_candidates: r.scanned - r.prefiltered - r.invalid,
          exact_mismatches: r.scanned - r.prefiltered - r.invalid - results.length,
          prefiltered: r.prefiltered,
          invalid: r.invalid,
          duplicate_products: 0,
        },
        timing_ms: { total: round3(total) },
        warnings,
      };
    },

    /** A seeded, reproducible random sample (a random seed when none is given, echoed back). */
    async sample(b: SampleRequest, requestId: string) {
      const t0 = performance.now();
      const lib = await library(b.database_id);
      const seed = b.seed ?? Math.floor(Math.random() * 2 ** 32);
      const rows = sampleIndices(lib.size, b.count, seed);
      const results = Array.from(rows, (row, i) => ({
        rank: i + 1,
        index: row,
        smiles: lib.smiles(row),
        score: null,
        product_id: lib.productId(row),
        price: lib.price(row),
        reaction_id: null,
        metric: 'sample',
        ...(b.include_properties
          ? { properties: properties(lib, row), predicted_properties: predicted(lib, row) }
          : {}),
        ...synthonsOf(b.include_synthons),
      }));
      return {
        request_id: requestId,
        database_id: lib.info.database_id,
        database_release: lib.info.release,
        metric: 'sample',
        scorer: 'sample',
        sampling_method: 'route_product_tuple',
        sampling_version: '1',
        seed,
        requested: b.count,
        returned: results.length,
        deduplicated: 0,
        results,
        counts: { returned: results.length },
        timing_ms: { total: round3(performance.now() - t0) },
        warnings:
          results.length < b.count
            ? [{ code: 'catalog_exhausted', message: `the catalog has ${lib.size} products` }]
            : [],
      };
    },
  };
}

export type V2SearchService = ReturnType<typeof createV2SearchService>;
