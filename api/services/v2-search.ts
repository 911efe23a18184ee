/**
 * The synchronous v2 capabilities over the served libraries: the catalog listing, Morgan
 * similarity search, cheese reranking (shape, electrostatic, Morgan) of catalogs, substructure search on
 * its own thread, and seeded samples. Bodies arrive validated by the route schemas (types, ranges,
 * defaults); this service judges what needs the libraries or RDKit.
 */
import { CHEESE_METRICS } from './shape-rerank.ts';
import { DomainError, validationError } from '../../platform/errors.ts';
import { tanimoto } from '../../engine/chem/index.ts';
import { sampleIndices, type Library } from '../../engine/selection/index.ts';
import { requestLimits } from './request-limits.ts';
import { comingNote } from './pending-databases.ts';
import {
  DEFAULT_SHORTLIST_MULTIPLIER,
  ENGINE_VERSION,
  parseQuery,
  predicted,
  properties,
  NO_PROPERTY_DROPS,
  round3,
  synthonsOf,
  type CheeseRequest,
  type SampleRequest,
  type SearchRequest,
  type V2SearchServiceDeps,
} from './v2-search-common.ts';
import { createV2Catalog } from './v2-catalog.ts';
import { createV2Substructure } from './v2-substructure.ts';

// The request shapes and constants live in v2-search-common.ts; importers keep this path.
export {
  DEFAULT_SHORTLIST_MULTIPLIER,
  ENGINE_VERSION,
  type CheeseRequest,
  type SampleRequest,
  type SearchRequest,
  type SubstructureRequest,
  type V2SearchServiceDeps,
} from './v2-search-common.ts';

export function createV2SearchService(deps: V2SearchServiceDeps) {
  /** The library named `id`, or a validation_error naming the field and the available ids. */
  async function library(id: string, loc: (string | number)[] = ['body', 'database_id']): Promise<Library> {
    const lib = await deps.libraries.get(id);
    if (lib) return lib;
    if (deps.fleet?.info(id))
      throw new DomainError(
        'capability_unavailable',
        `${id} is held by the scan fleet: only POST /api/v2/search (Morgan/ECFP4) is fanned out to it`,
      );
    const coming = deps.spaces?.notReady(id);
    if (coming) throw validationError(loc, coming, 'value_error.not_ready');
    // Ids only: listing the libraries would open (load) every catalog just to name them.
    const ids = [
      ...(deps.libraries.ids
        ? await deps.libraries.ids()
        : (await deps.libraries.list()).map((l) => l.info.database_id)),
      ...(deps.fleet?.list().map((i) => i.database_id) ?? []),
      ...(deps.spaces?.ids() ?? []),
    ];
    throw validationError(
      loc,
      `unknown database ${JSON.stringify(id)}; available: ${ids.join(', ')}` +
        comingNote(deps.spaces?.pending?.() ?? []),
      'value_error.database',
    );
  }

  return {
    catalog: createV2Catalog(deps),

    /**
     * Morgan (ECFP4) Tanimoto k-NN. A fleet catalog fans out over its shard holders with the
     * search budget; shards that did not answer are named in a partial_coverage warning and
     * counts.coverage is the share of its molecules that did (absent on catalogs held here).
     */
    async search(b: SearchRequest, requestId: string) {
      const t0 = performance.now();
      const q = await parseQuery(b.query_smiles);
      const held = await deps.libraries.get(b.database_id);
      const remote = held ? undefined : deps.fleet?.info(b.database_id);
      const local = remote ? undefined : (held ?? (await library(b.database_id)));
      const t1 = performance.now();
      const found = local
        ? { lib: local, rows: (await local.knn(q.fp, b.limit, undefined, requestLimits())).rows }
        : await deps.fleet!.knn(b.database_id, q.fp, b.limit);
      const lib = found.lib;
      const about = remote ?? local!.info;
      const coverage = 'coverage' in found ? found.coverage : undefined;
      // The k-NN ranks in float32; answers carry the exact double Tanimoto of each pair (as
      // /molsearch, centroid search and selections do), re-sorted so rank follows the score.
      const exact = Array.from(found.rows, (row) => ({ row, score: tanimoto(q.fp, lib.fingerprint(row)) }));
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
        database_id: about.database_id,
        database_release: about.release,
        scorer: 'morgan',
        metric: 'rdkit.ecfp4_tanimoto',
        engine_version: ENGINE_VERSION,
        query_smiles: q.canonicalSmiles,
        results,
        counts: {
          returned: results.length,
          // A fleet catalog: the molecules of the shards that answered.
          scanned: local ? local.size : Math.round(remote!.product_count * coverage!.fraction),
          ...(coverage ? { coverage: coverage.fraction } : {}),
        },
        timing_ms: { query: round3(t1 - t0), search: round3(total - (t1 - t0)), total: round3(total) },
        warnings: coverage?.message ? [{ code: 'partial_coverage', message: coverage.message }] : [],
      };
    },

    /**
     * Exact-product reranking of a catalog (shape-rerank.ts): limit × shortlist_multiplier rows
     * proposed, every one scored exactly, the best `limit` returned as the interface's reranking
     * result. Synthon spaces are not libraries here: v2-space-search wraps this method for them.
     */
    async cheese(b: CheeseRequest, requestId: string) {
      await parseQuery(b.query_smiles);
      const lib = await library(b.database_id);
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
          ...NO_PROPERTY_DROPS,
        },
        timing_ms: r.timing,
        warnings: [],
      };
    },

    substructure: createV2Substructure(deps, library),

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
