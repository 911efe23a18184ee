import { rowRecord, type Catalog } from '../../engine/catalog/index.ts';
import { DESCRIPTOR_NAMES, getRDKit, parseMolecule } from '../../engine/chem/index.ts';
import type { SearchPool } from '../../engine/search/index.ts';
import { DESCRIPTOR_LENGTH, describeConformers, type ShapePool } from '../../engine/shape/index.ts';
import type { Molecule3d } from '../../engine/catalog/three-d-schema.ts';
import { DomainError, invalidSmiles, validationError } from '../../platform/errors.ts';
import type { QueryEmbedder } from './query-embedder.ts';
import type { FilterName, NeighborRow, OrderingName, SimilarityResult } from './search-service.ts';
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
import { createShapeStages, unionCandidates, type Candidate } from './shape-stages.ts';
import { createShapeRerank, type ShapeRerank } from './shape-rerank.ts';
import { createShapeObjectives, type ShapeObjectives } from './shape-objectives.ts';
import type { ThreeDStatusService } from './three-d-status.ts';

export const THREE_D_TYPES = ['espsim_shape', 'espsim_electrostatic'] as const;
export type ThreeDType = (typeof THREE_D_TYPES)[number];

/** Shortlist sizes of the first stage by `search_quality`; `very_accurate` scores every row. */
export function shortlistSize(quality: string | undefined, k: number): number {
  if (quality === 'very_accurate' || quality === 'very accurate') return Infinity;
  const n = quality === 'accurate' ? 1000 : /^\d+$/.test(quality ?? '') ? Number(quality) : 100;
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
  /** 422 naming `loc` when the chem3d worker cannot embed `smiles`, 503 when none answers. */
  checkQuery(smiles: string, loc?: (string | number)[]): Promise<void>;
  /**
   * Each SMILES embedded by the chem3d worker (the catalog's recipe) with its first-stage
   * descriptors; an unembeddable one gets its reason. 503 (`unavailable`) when no worker answers.
   */
  embedMany(smiles: string[], loc: (string | number)[]): Promise<Embedded3d[]>;
  /**
   * The first stage alone for a given descriptor vector (60 floats per conformer, one or more
   * conformers): the k rows of 3D-ready databases with the best first-stage similarity.
   */
  searchDescriptors(req: {
    vector: Float32Array;
    dbNames: string[];
    k: number;
    descriptors: boolean;
  }): Promise<SimilarityResult>;
}

const ms = (a: number, b: number) => Math.round(b - a);

/**
 * espsim_shape / espsim_electrostatic / consensus (and morgan with 3D columns) over 3D-ready
 * catalogs: the query is embedded by the chem3d worker, every row's conformers are screened by
 * USRCAT-style descriptors (first stage, stored in the sidecars), and the shortlist is aligned and
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

  async function fingerprint(smiles: string, loc: (string | number)[]) {
    const p = parseMolecule(await getRDKit(), smiles);
    if ('error' in p) throw invalidSmiles(loc, smiles, `SMILES (${p.error})`);
    return p;
  }

  function toRows(
    ranked: RankedCandidate[],
    types: RankedType[],
    orderings: OrderingName[],
    descriptors: boolean,
  ): NeighborRow[] {
    return ranked.map((c) => {
      const rec = rowRecord(stages.shard(c), c.row, [
        'product_id',
        'smiles',
        ...(descriptors ? DESCRIPTOR_NAMES : []),
      ]);
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

  async function checkReady(dbNames: string[], loc: (string | number)[] = ['query', 'db_names']) {
    for (const name of dbNames) {
      const s = await deps.threeD.status(name);
      if (!s || s.status === 'ready') continue; // unknown names: the usual check names them
      const p = s.progress;
      // Estimated from this run's own rate, once a part has completed.
      const eta =
        p && p.moleculesDone > 0 && p.moleculesDone < p.moleculesTotal
          ? `, about ${Math.ceil((((Date.now() - p.startedAt) / p.moleculesDone) * (p.moleculesTotal - p.moleculesDone)) / 60_000)} min to go`
          : '';
      const when =
        s.status === 'building' && p
          ? `its 3D stage is running: ${p.moleculesDone} of ${p.moleculesTotal} molecules embedded${eta}; retry when it completes (GET /available_databases_full shows the progress)`
          : 'its 3D stage has not been run (molsearch start runs it for bundled catalogs; see docs/chem3d.md)';
      throw validationError(loc, `database ${name} is not 3D-ready yet: ${when}`, 'value_error.not_ready');
    }
  }

  return {
    async defaultDatabase() {
      const ready = [];
      for (const c of deps.catalogs)
        if ((await deps.threeD.status(c.manifest.id))?.status === 'ready') ready.push(c);
      return ready.sort((a, b) => b.manifest.counts.molecules - a.manifest.counts.molecules)[0]?.manifest.id;
    },

    checkReady,

    async checkQuery(smiles, loc) {
      await deps.embedder.embed(smiles, loc);
    },

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
      const limit = shortlistSize(req.quality, k);
      // Candidates: the first-stage shortlist when a 3D score ranks; the Morgan top rows when
      // Morgan ranks (its top k then equals a morgan search's); both for the consensus.
      let candidates: Candidate[] = [];
      let screened = 0;
      let method = '';
      if (primary !== 'morgan') {
        const first = await stages.firstStage(
          [query],
          req.dbNames,
          limit,
          primary === 'espsim_electrostatic' ? 'esp' : 'shape',
        );
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
      const rows = toRows(top, req.types, orderings, req.descriptors);
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
      const limit = shortlistSize(req.quality, req.k);
      const { candidates, rows, method } = await stages.firstStage(
        queries,
        req.dbNames,
        limit,
        req.type === 'espsim_electrostatic' ? 'esp' : 'shape',
      );
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
        rows: toRows(ranked, [req.type], [], false),
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

    async searchDescriptors(req) {
      const t0 = performance.now();
      const { candidates, rows } = await stages.descriptorStage(req.vector, req.dbNames, req.k);
      const out = candidates.map((c) => {
        const rec = rowRecord(stages.shard(c), c.row, [
          'product_id',
          'smiles',
          ...(req.descriptors ? DESCRIPTOR_NAMES : []),
        ]);
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
        ],
      };
    },
  };
}
