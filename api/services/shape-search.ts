import type { Catalog } from '../../engine/catalog/index.ts';
import { getRDKit, parseMolecule } from '../../engine/chem/index.ts';
import type { SearchPool } from '../../engine/search/index.ts';
import {
  DESCRIPTOR_LENGTH,
  describeConformers,
  scoreEmbedded,
  type ShapePool,
} from '../../engine/shape/index.ts';
import { DomainError, invalidSmiles, validationError } from '../../platform/errors.ts';
import type { QueryEmbedder } from './query-embedder.ts';
import type { FilterName, NeighborRow, OrderingName } from './search-service.ts';
import { FILTER_OVERFETCH, type CatalogFilters } from './catalog-filters.ts';
import {
  applyOrderings,
  scoreColumns,
  scoreOf,
  topBy,
  withConsensus,
  type RankedCandidate,
  type RankedType,
} from './shape-rank.ts';
import { createShapeStages, unionCandidates, type Candidate, type FirstStageMetric } from './shape-stages.ts';
import { createShapeRerank } from './shape-rerank.ts';
import { createShapeObjectives } from './shape-objectives.ts';
import type { ThreeDStatusService } from './three-d-status.ts';
import { createCheckReady } from './three-d-ready.ts';
import { admetRemarks, rowColumns, type RowColumnsRequest } from './row-properties.ts';
import {
  MAX_CENTROID_3D_INPUTS,
  shortlistSize,
  type Embedded3d,
  type ShapeSearchService,
} from './shape-search-contract.ts';

// The service's contract lives in shape-search-contract.ts; importers keep this path.
export {
  MAX_CENTROID_3D_INPUTS,
  SHORTLIST_ROWS,
  shortlistSize,
  THREE_D_TYPES,
  type Embedded3d,
  type ShapeCentroidRequest,
  type ShapeSearchRequest,
  type ShapeSearchService,
  type ThreeDType,
} from './shape-search-contract.ts';

const ms = (a: number, b: number) => Math.round(b - a);

/**
 * espsim_shape / espsim_electrostatic / consensus (and morgan with 3D columns) over 3D-ready
 * catalogs: the query is embedded by the chem3d worker, every row's conformers are screened by a
 * first stage (shape-stages.ts: grids, or the sidecars' USRCAT-style descriptors), and the shortlist is aligned and
 * scored exactly on the shape pool's threads (engine/shape). Rows carry `Shapesim`, `Espsim`
 * (both at the best shape alignment) and `Morgan Tanimoto`.
 */
export function createShapeSearch(deps: {
  catalogs: Catalog[];
  pool: SearchPool;
  shapePool: ShapePool;
  embedder: QueryEmbedder;
  threeD: ThreeDStatusService;
  /** The Morgan path's catalog filters (required for requests that name filters). */
  filters?: CatalogFilters;
}): ShapeSearchService {
  const stages = createShapeStages(deps);
  const models = new Set(deps.catalogs.filter((c) => c.manifest.models).map((c) => c.manifest.id));
  const withModels = (db: string) => models.has(db);

  async function fingerprint(smiles: string, loc: (string | number)[]) {
    const p = parseMolecule(await getRDKit(), smiles);
    if ('error' in p) throw invalidSmiles(loc, smiles, `SMILES (${p.error})`);
    return p;
  }

  function toRows(
    ranked: RankedCandidate[],
    types: RankedType[],
    orderings: OrderingName[],
    columns: RowColumnsRequest,
  ): NeighborRow[] {
    return ranked.map((c) => {
      // The Morgan path's property columns (row-properties.ts): same keys and values per molecule.
      const rec = rowColumns(stages.shard(c), c.row, columns, withModels(c.db));
      const { product_id, smiles, ...rest } = rec;
      return {
        smiles: String(smiles),
        id: String(product_id),
        database: c.db,
        db_id: String(product_id),
        similarity: scoreOf(c, types[0]),
        ...scoreColumns(c, types, orderings),
        ...rest,
      } as NeighborRow;
    });
  }

  /** The first `k` of the ranked rows that pass the filters, each with its candidate. */
  async function filtered(
    top: RankedCandidate[],
    rows: NeighborRow[],
    filters: FilterName[],
    canonical: string,
    k: number,
  ) {
    const cands = top.map((c, i) => ({ row: rows[i], shard: stages.shard(c), index: c.row }));
    const kept = await deps.filters!.apply(cands, filters, canonical, k);
    // Survivors keep the ranked order (QED adds a key to a copy): pair them up by walking both lists.
    const pairs: { c: RankedCandidate; row: NeighborRow }[] = [];
    let j = 0;
    for (const row of kept.rows) {
      while (rows[j].database !== row.database || rows[j].id !== row.id) j++;
      pairs.push({ c: top[j++], row });
    }
    return { pairs, remarks: kept.remarks };
  }

  const checkReady = createCheckReady(deps.threeD);

  return {
    async defaultDatabase() {
      const ready = [];
      for (const c of deps.catalogs)
        if ((await deps.threeD.status(c.manifest.id))?.status === 'ready') ready.push(c);
      return ready.sort((a, b) => b.manifest.counts.molecules - a.manifest.counts.molecules)[0]?.manifest.id;
    },

    checkReady,

    checkQuery: (smiles, loc) => deps.embedder.embed(smiles, loc),

    async search(req) {
      const loc = req.loc ?? ['query', 'search_input'];
      const primary = req.types[0];
      const filters = req.filters ?? [];
      if (filters.length && !deps.filters)
        throw new DomainError('capability_unavailable', 'filters are not configured on the 3D search path');
      // Over-fetch like the Morgan path so that k rows survive the filters when possible.
      const k = filters.length ? FILTER_OVERFETCH(req.k) : req.k;
      const t0 = performance.now();
      const q = await fingerprint(req.smiles, loc);
      const query = await deps.embedder.embed(req.smiles, loc);
      const t1 = performance.now();
      const metric: FirstStageMetric = primary === 'espsim_electrostatic' ? 'esp' : 'shape';
      const limit = shortlistSize(req.quality, k, metric);
      // Candidates: the first-stage shortlist when a 3D score ranks; the Morgan top rows when
      // Morgan ranks (its top k then equals a morgan search's); both for the consensus.
      let candidates: Candidate[] = [];
      let screened = 0;
      let method = '';
      if (primary !== 'morgan') {
        const first = await stages.firstStage([query], req.dbNames, limit, metric);
        candidates = first.candidates;
        screened = first.rows;
        method = first.method;
      }
      if (primary === 'morgan' || primary === 'consensus')
        candidates = unionCandidates(
          candidates,
          await stages.morganStage(q.fp, req.dbNames, primary === 'morgan' ? k : Math.min(limit, 100_000)),
        );
      const t2 = performance.now();
      const scored = withConsensus(await stages.exact([query], [q.fp], candidates));
      const orderings = req.ordering ?? [];
      const top = topBy(scored, primary, k);
      const t3 = performance.now();
      const columns = { descriptors: req.descriptors, properties: req.properties ?? false };
      const rows = toRows(top, req.types, orderings, columns);
      const kept = filters.length
        ? await filtered(top, rows, filters, q.canonicalSmiles, req.k)
        : { pairs: top.map((c, i) => ({ c, row: rows[i] })), remarks: [] };
      // The orderings sort the k survivors, as they sort the top k of an unfiltered search.
      const rowOf = new Map(kept.pairs.map((p) => [p.c, p.row]));
      const ordered = applyOrderings(
        kept.pairs.map((p) => p.c),
        orderings,
        primary,
      ).map((c) => rowOf.get(c)!);
      return {
        canonical: q.canonicalSmiles,
        rows: ordered,
        remarks: [
          `3D search ranked by ${primary}: query embedded with ${query.confCount} conformer(s) in ${ms(t0, t1)} ms; ` +
            (primary === 'morgan' ? '' : `first stage (${method}) screened ${screened} rows; `) +
            `${candidates.length} candidates proposed in ${ms(t1, t2)} ms, aligned and scored exactly in ${ms(t2, t3)} ms.`,
          ...(req.types.includes('consensus')
            ? [
                'Consensus = reciprocal-rank fusion (k = 60) of the Morgan, shape and electrostatic rankings of the candidates, scaled so that first in all three scores 1.',
              ]
            : []),
          ...kept.remarks,
          ...admetRemarks(columns.properties, req.dbNames, withModels),
        ],
      };
    },

    async centroid(req) {
      if (req.smiles.length > MAX_CENTROID_3D_INPUTS)
        throw validationError(
          ['query', 'search_input'],
          `at most ${MAX_CENTROID_3D_INPUTS} inputs per 3D centroid search, got ${req.smiles.length}; use search_mode=batch for more`,
          'value_error.too_many',
        );
      const t0 = performance.now();
      const parsed = await Promise.all(
        req.smiles.map((s, i) => fingerprint(s, ['query', 'search_input', i])),
      );
      const queries = await Promise.all(
        req.smiles.map((s, i) => deps.embedder.embed(s, ['query', 'search_input', i])),
      );
      const t1 = performance.now();
      const metric: FirstStageMetric = req.type === 'espsim_electrostatic' ? 'esp' : 'shape';
      const limit = shortlistSize(req.quality, req.k, metric);
      const { candidates, rows, method } = await stages.firstStage(queries, req.dbNames, limit, metric);
      const t2 = performance.now();
      const scored = withConsensus(
        await stages.exact(
          queries,
          parsed.map((p) => p.fp),
          candidates,
        ),
      );
      const ranked = topBy(scored, req.type, req.k);
      const t3 = performance.now();
      return {
        canonical: parsed.map((p) => p.canonicalSmiles).join('.'),
        rows: toRows(ranked, [req.type], [], { descriptors: false, properties: false }),
        remarks: [
          `3D centroid of ${queries.length} queries: each row scores the mean of its ${req.type} similarity to every query ` +
            `(Shapesim, Espsim and Morgan Tanimoto are means too). Queries embedded in ${ms(t0, t1)} ms; first stage ` +
            `(mean ${method} similarity) screened ${rows} rows in ${ms(t1, t2)} ms; ${candidates.length} aligned onto ` +
            `every query and scored in ${ms(t2, t3)} ms.`,
        ],
      };
    },

    rerank: createShapeRerank({ stages, embedder: deps.embedder, fingerprint, checkReady }),
    objectives: createShapeObjectives({ stages, embedder: deps.embedder, fingerprint, checkReady }),

    async embedMany(smiles, loc) {
      // Two at a time: the query queue's worker embeds one molecule per core.
      const out: Embedded3d[] = new Array(smiles.length);
      let next = 0;
      const one = async (): Promise<void> => {
        for (let i = next++; i < smiles.length; i = next++) {
          try {
            const molecule = await deps.embedder.embed(smiles[i], [...loc, i]);
            out[i] = { ok: true, molecule, descriptors: describeConformers(molecule) };
          } catch (err) {
            if (!(err instanceof DomainError) || err.code !== 'validation_error') throw err;
            out[i] = { ok: false, reason: err.issues[0]?.msg ?? err.message };
          }
        }
      };
      await Promise.all([one(), one()]);
      return out;
    },

    embedShortlist: (smiles, opts) => deps.embedder.embedShortlist(smiles, opts),

    scoreEmbedded: (query, molecules, metric) => scoreEmbedded(deps.shapePool, query, molecules, metric),

    async searchDescriptors(req) {
      const t0 = performance.now();
      const { candidates, rows } = await stages.descriptorStage(req.vector, req.dbNames, req.k);
      const columns = { descriptors: req.descriptors, properties: req.properties ?? false };
      const out = candidates.map((c) => {
        const rec = rowColumns(stages.shard(c), c.row, columns, withModels(c.db));
        const { product_id, smiles, ...rest } = rec;
        return {
          smiles: String(smiles),
          id: String(product_id),
          database: c.db,
          db_id: String(product_id),
          similarity: c.first,
          ...rest,
        } as NeighborRow;
      });
      return {
        canonical: '',
        rows: out,
        remarks: [
          `3D first stage by a given embedding (${req.vector.length / DESCRIPTOR_LENGTH} conformer(s)): ` +
            `${rows} rows screened in ${Math.round(performance.now() - t0)} ms; similarity is the first-stage score.`,
          ...admetRemarks(columns.properties, req.dbNames, withModels),
        ],
      };
    },
  };
}
