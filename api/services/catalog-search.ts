import type { Logger } from '../../platform/logger.ts';
import { invalidSmiles } from '../../platform/errors.ts';
import { getRDKit, parseMolecule, tanimoto, FP_BYTES, type RDKitModule } from '../../engine/chem/index.ts';
import type { Catalog, ShardData } from '../../engine/catalog/index.ts';
import {
  centroidTanimoto,
  prepareCentroid,
  type Hit,
  type PreparedQuery,
  type SearchPool,
} from '../../engine/search/index.ts';
import { createFilterPool, type FilterPool } from '../../engine/filters/index.ts';
import { analysisToDomain, embeddingQuery } from '../../engine/analysis/index.ts';
import { catalogFiltersFor, FILTER_OVERFETCH } from './catalog-filters.ts';
import type { FleetSearch } from './fleet-search.ts';
import {
  FILTERS,
  type FilterName,
  type NeighborRow,
  type OrderingName,
  type SearchService,
  type SimilarityRequest,
  type SimilarityResult,
} from './search-service.ts';
import { requestLimits } from './request-limits.ts';
import { databaseInfo, propertyValues, randomRows } from './catalog-reads.ts';
import { admetRemarks, rowColumns } from './row-properties.ts';

export interface CatalogSearchDeps {
  catalogs: Catalog[];
  pool: SearchPool;
  log: Logger;
  rd?: RDKitModule;
  /** RDKit worker threads for the QED, PAINS and structure filters (default: one lazily started thread). */
  filterPool?: FilterPool;
  /** Catalogs the scan-worker fleet holds, searched by fan-out (api/services/fleet-search.ts). */
  fleet?: FleetSearch;
}

/** The search service over catalogs held by the engine pool (the implementation of SearchService). */
export async function createCatalogSearchService(deps: CatalogSearchDeps): Promise<SearchService> {
  const rd = deps.rd ?? (await getRDKit());
  const { pool } = deps;
  const fleet = deps.fleet;
  const fleetIds = new Set(fleet?.manifests.map((m) => m.id));
  const served = [
    ...deps.catalogs,
    ...(fleet?.manifests ?? [])
      .filter((m) => !deps.catalogs.some((c) => c.manifest.id === m.id))
      .map((manifest) => ({ manifest })),
  ];
  const byId = new Map(served.map((c) => [c.manifest.id, c]));
  const infos = served.map(databaseInfo);
  const local = (h: Hit) => pool.shard(h.catalog, h.shard) as ShardData;
  const filters = catalogFiltersFor(rd, deps.filterPool ?? createFilterPool({ threads: 1 }));

  function parseQuery(smiles: string, loc: (string | number)[]) {
    const parsed = parseMolecule(rd, smiles);
    if ('error' in parsed) throw invalidSmiles(loc, smiles, `SMILES (${parsed.error})`);
    return parsed;
  }

  function toRow(
    hit: Hit,
    shard: ShardData,
    score: (fp: Uint8Array, hit: Hit) => number,
    req: Pick<SimilarityRequest, 'descriptors' | 'properties'>,
  ): NeighborRow {
    const rec = rowColumns(shard, hit.row, req, Boolean(byId.get(hit.catalog)?.manifest.models));
    // The kernel scores in float32; recompute the exact double from the row's bits for the answer
    // (a Tanimoto pair, or a centroid's continuous Tanimoto): one pair, one score everywhere.
    const similarity = score(shard.fingerprints.subarray(hit.row * FP_BYTES, (hit.row + 1) * FP_BYTES), hit);
    const { product_id, smiles, ...rest } = rec;
    return {
      smiles: String(smiles),
      id: String(product_id),
      database: hit.catalog,
      db_id: String(product_id),
      similarity,
      'Morgan Tanimoto': similarity,
      ...rest,
    } as NeighborRow;
  }

  async function finish(
    hits: Hit[],
    score: (fp: Uint8Array, hit: Hit) => number,
    req: Pick<SimilarityRequest, 'descriptors' | 'properties' | 'filters' | 'ordering' | 'k' | 'dbNames'>,
    canonical: string,
    shardOf: (h: Hit) => ShardData = local,
  ): Promise<SimilarityResult> {
    const candidates = hits.map((h) => ({
      row: toRow(h, shardOf(h), score, req),
      shard: shardOf(h),
      index: h.row,
    }));
    // 'Similarity' and 'Morgan Tanimoto' are the same key for a Morgan search: best first, ties by id.
    // Ordering first lets the filters stop as soon as the best k survivors are known.
    if (req.ordering.length)
      candidates.sort(
        ({ row: a }, { row: b }) =>
          b.similarity - a.similarity || a.database.localeCompare(b.database) || a.id.localeCompare(b.id),
      );
    const { rows, remarks } = await filters.apply(candidates, req.filters, canonical, req.k);
    remarks.push(...admetRemarks(req.properties, req.dbNames, (d) => Boolean(byId.get(d)?.manifest.models)));
    return { canonical, rows, remarks };
  }

  /**
   * One query's top k: catalogs this process holds scanned by the pool (`local`), catalogs the
   * fleet holds fanned out to the scan workers with the same query (`remote`: a fingerprint, or a
   * weight vector for the continuous Tanimoto), one merged top k with the fleet's coverage.
   */
  async function fanOut(
    req: Pick<SimilarityRequest, 'descriptors' | 'properties' | 'filters' | 'ordering' | 'k' | 'dbNames'>,
    query: {
      local: (catalogs: string[]) => Promise<Hit[]>;
      remote: Uint8Array | Float64Array;
      score: (fp: Uint8Array, hit: Hit) => number;
    },
    canonical: string,
    k: number,
  ): Promise<SimilarityResult> {
    const remote = req.dbNames.filter((d) => fleetIds.has(d));
    if (!fleet || !remote.length) return finish(await query.local(req.dbNames), query.score, req, canonical);
    const rest = req.dbNames.filter((d) => !fleetIds.has(d));
    const [far, near] = await Promise.all([
      fleet.knn(remote, query.remote, k),
      rest.length ? query.local(rest) : Promise.resolve([]),
    ]);
    const tagged = [
      ...far.hits.map((h) => ({ h, s: far.shardOf(h) })),
      ...near.map((h) => ({ h, s: local(h) })),
    ].sort((a, b) => b.h.similarity - a.h.similarity || a.h.catalog.localeCompare(b.h.catalog));
    const kept = tagged.slice(0, k);
    const shardOfHit = new Map(kept.map((x) => [x.h, x.s]));
    const result = await finish(
      kept.map((x) => x.h),
      query.score,
      req,
      canonical,
      (h) => shardOfHit.get(h)!,
    );
    if (far.coverage.message) result.warnings = [{ code: 'partial_coverage', message: far.coverage.message }];
    result.coverage = far.coverage.fraction;
    return result;
  }

  /** A fingerprint's Tanimoto k-NN, scored in f64 for the answer. */
  const tanimotoQuery = (fp: Uint8Array, k: number) => ({
    local: (catalogs: string[]) => pool.knn({ catalogs, query: fp, k, ...requestLimits() }),
    remote: fp,
    score: (row: Uint8Array) => tanimoto(fp, row),
  });

  return {
    // Fresh per call: a catalog's 3D stage may complete while the service runs.
    databases: () => served.map(databaseInfo),
    // The largest catalog is the default, as the vendor's flagship database would be.
    defaultDatabase: () => [...infos].sort((a, b) => b.molecules - a.molecules)[0]?.id ?? '',
    availableFilters: (): FilterName[] => [...FILTERS],
    availableOrderings: (): OrderingName[] => ['Similarity', 'Morgan Tanimoto'],
    ready: () => infos.length > 0,
    async similarity(req) {
      const q = parseQuery(req.smiles, ['query', 'search_input']);
      const k = req.filters.length ? FILTER_OVERFETCH(req.k) : req.k;
      return fanOut(req, tanimotoQuery(q.fp, k), q.canonicalSmiles, k);
    },
    async batch(req) {
      const qs = req.smiles.map((s, i) => parseQuery(s, ['query', 'search_input', i]));
      const k = req.filters.length ? FILTER_OVERFETCH(req.k) : req.k;
      if (fleet && req.dbNames.some((d) => fleetIds.has(d))) {
        // One fan-out per query, one after another: each gets the whole fleet and its own budget
        // (in parallel they would share the workers' threads and all run out of time together).
        const out: SimilarityResult[] = [];
        for (const q of qs) out.push(await fanOut(req, tanimotoQuery(q.fp, k), q.canonicalSmiles, k));
        return out;
      }
      const all = await pool.knnMany({
        catalogs: req.dbNames,
        queries: qs.map((q) => q.fp),
        k,
        ...requestLimits(),
      });
      return Promise.all(
        all.map((hits, i) => finish(hits, (fp) => tanimoto(qs[i].fp, fp), req, qs[i].canonicalSmiles)),
      );
    },
    async centroid(req) {
      const qs = req.smiles.map((s, i) => parseQuery(s, ['query', 'search_input', i]));
      const k = req.filters.length ? FILTER_OVERFETCH(req.k) : req.k;
      const fps = qs.map((q) => q.fp);
      // The mean bit-frequency vector: the pool prepares the same one from the same inputs, and
      // the fleet's workers get its exact doubles (engine/search/query.ts).
      const centroid = prepareCentroid(fps);
      const canonicalInputs = qs.map((q) => q.canonicalSmiles);
      const result = await fanOut(
        req,
        {
          local: (catalogs) => pool.centroid({ catalogs, queries: fps, k, ...requestLimits() }),
          remote: centroid.weights,
          score: (fp) => centroidTanimoto(centroid, fp),
        },
        canonicalInputs.join('.'),
        k,
      );
      return { ...result, canonicalInputs };
    },
    async byEmbedding(req) {
      let query: PreparedQuery;
      try {
        query = embeddingQuery(req.vector, 'embedding');
      } catch (err) {
        throw analysisToDomain(err);
      }
      const k = req.filters.length ? FILTER_OVERFETCH(req.k) : req.k;
      // A fingerprint query is rescored in f64 like /molsearch; a weighted one keeps its score.
      const fp = query.kind === 'tanimoto' ? query.fp : undefined;
      return fanOut(
        req,
        {
          local: (catalogs) => pool.knnPrepared({ catalogs, query, k, ...requestLimits() }),
          remote: query.kind === 'tanimoto' ? query.fp : query.weights,
          score: (row, hit) => (fp ? tanimoto(fp, row) : hit.similarity),
        },
        '',
        k,
      );
    },
    propertyValues: (dbName, column) => propertyValues(pool, byId, dbName, column),
    random: async (n) => randomRows(pool, deps.catalogs, n),
  };
}
