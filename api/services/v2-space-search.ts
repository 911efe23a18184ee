/**
 * Synthon spaces in the synchronous v2 capabilities: `/api/v2/catalog` lists them (kind
 * `synthon`, product and reaction counts, capabilities), and `search` and `sample` on a space's
 * `database_id` run on the space pool's thread; hits carry `reaction_id` and, with
 * `include_synthons`, `synthons: [{slot, synthon_id, smiles}]`; `search_substructure` and
 * `search_cheese` with scorer morgan on a space go to v2-space-structure.ts, with scorer shape or
 * esp to v2-space-cheese-3d.ts. Everything else goes to the catalog service unchanged.
 */
import { invalidSmiles } from '../../platform/errors.ts';
import { getRDKit, parseMolecule } from '../../engine/chem/index.ts';
import type { SpacePool } from '../../engine/synthons/space-pool.ts';
import { ENGINE_VERSION, type SampleRequest, type SearchRequest, type V2SearchService } from './v2-search.ts';
import { uniqueSpaceHits, type SpaceEntry } from './space-search.ts';
import type { PendingDatabase } from './pending-databases.ts';
import type { CatalogLibrary } from './v2-catalog.ts';
import { spaceCheese3d, type SpaceShape } from './v2-space-cheese-3d.ts';
import {
  spaceCheese,
  spaceSubstructure,
  type SpaceCheeseRequest,
  type SpaceSubstructureRequest,
} from './v2-space-structure.ts';

const round3 = (ms: number) => Math.round(ms * 1000) / 1000;
// Space answers are the catalog answers' shapes plus reranking counts, reaction ids and synthons:
// typed as the base service's (the route schemas are open), hence these two aliases.
type SearchAnswer = Awaited<ReturnType<V2SearchService['search']>>;
type SampleAnswer = Awaited<ReturnType<V2SearchService['sample']>>;
type SubstructureAnswer = Awaited<ReturnType<V2SearchService['substructure']>>;
const SPACE_TIMEOUT_MS = 20_000;

type Synthons = Array<{ slot: number; synthonId: string; smiles: string }>;
const synthonsOut = (include: boolean, s: Synthons) =>
  include ? { synthons: s.map((x) => ({ slot: x.slot, synthon_id: x.synthonId, smiles: x.smiles })) } : {};

/**
 * `spaces` is read on every call: a space built in the background is pushed into it when ready.
 * `shape` (the 3D search path) serves search_cheese's shape and esp scorers on spaces; absent,
 * they answer 503.
 */
export function withV2Spaces(
  base: V2SearchService,
  spaces: SpaceEntry[],
  pool: SpacePool,
  shape?: SpaceShape,
  opts: {
    /** The 3D rerank's whole-request budget (default DEFAULT_SPACE_3D_BUDGET_MS). */
    space3dBudgetMs?: number;
    /** Spaces being built (listed, not searchable yet; read on every call). */
    pending?: () => PendingDatabase[];
  } = {},
): V2SearchService {
  const byId = { get: (id: string) => spaces.find((s) => s.manifest.id === id) };
  return {
    ...base,
    async catalog() {
      const out = await base.catalog();
      const extra = spaces.map((s): CatalogLibrary => ({
        database_id: s.manifest.id,
        name: s.manifest.name,
        vendor: s.vendor,
        website: s.website,
        contact: s.website,
        kind: 'synthon' as const,
        release: s.manifest.createdAt.slice(0, 10),
        database_release: s.manifest.createdAt.slice(0, 10),
        product_count: s.manifest.counts.products,
        reaction_count: s.manifest.counts.reactions,
        synthon_count: s.manifest.counts.synthons,
        capabilities: {
          search: true,
          search_cheese: shape ? ['morgan', 'shape', 'esp'] : ['morgan'],
          search_substructure: true,
          sample: true,
          // Ranked and route_product_tuple sample selections, and runs, execute on spaces
          // (engine/synthons/space-selection.ts); the flag said false while they worked.
          selections: true,
          predicted_properties: false,
        },
        pricing: { available: false, currency: null, constraints: [] },
        three_d: null,
        status: 'ready',
        searchable: true,
      }));
      // A space being built: listed with its state and no capability yet (search answers 422).
      const coming = (opts.pending?.() ?? []).map((p): CatalogLibrary => ({
        database_id: p.id,
        name: p.name,
        vendor: p.vendor,
        website: p.website,
        contact: p.website,
        kind: p.kind,
        release: null,
        database_release: null,
        product_count: p.molecules,
        capabilities: {
          search: false,
          search_cheese: [],
          search_substructure: false,
          sample: false,
          selections: false,
          predicted_properties: false,
        },
        pricing: { available: false, currency: null, constraints: [] },
        three_d: null,
        status: p.build.status,
        searchable: false,
        build: p.build,
      }));
      return { ...out, libraries: [...out.libraries, ...extra, ...coming] };
    },

    async search(b: SearchRequest, requestId: string) {
      const space = byId.get(b.database_id);
      if (!space) return base.search(b, requestId);
      const t0 = performance.now();
      const q = parseMolecule(await getRDKit(), b.query_smiles);
      if ('error' in q) throw invalidSmiles(['body', 'query_smiles'], b.query_smiles, `SMILES (${q.error})`);
      const t1 = performance.now();
      // One result per product (a product two routes reach once), as search_cheese and /molsearch.
      const r = await uniqueSpaceHits(pool, space.manifest.id, q.fp, b.limit, SPACE_TIMEOUT_MS);
      const results = r.hits.map((h, i) => ({
        rank: i + 1,
        smiles: h.smiles,
        score: h.similarity,
        product_id: h.productId,
        price: null,
        reaction_id: h.reactionId,
        metric: 'rdkit.ecfp4_tanimoto',
        ...synthonsOut(b.include_synthons, h.synthons),
      }));
      const total = performance.now() - t0;
      const warnings = r.timedOut
        ? [
            {
              code: 'timed_out',
              message: 'the space search stopped at its time budget; results are the best found',
            },
          ]
        : [];
      const answer = {
        request_id: requestId,
        database_id: space.manifest.id,
        database_release: space.manifest.createdAt.slice(0, 10),
        scorer: 'morgan',
        metric: 'rdkit.ecfp4_tanimoto',
        engine_version: ENGINE_VERSION,
        query_smiles: q.canonicalSmiles,
        // The top `limit` are proven the best only when the search finished within its budget.
        timed_out: r.timedOut,
        results,
        counts: {
          returned: results.length,
          scanned: space.manifest.counts.products,
          proposed: r.counts.candidates,
          assembled: r.counts.assembled,
          invalid: r.counts.invalid,
        },
        timing_ms: {
          query: round3(t1 - t0),
          proposal: round3(r.timingMs.proposal),
          assembly_and_scoring: round3(r.timingMs.assembly),
          search: round3(total - (t1 - t0)),
          total: round3(total),
        },
        warnings,
      };
      return answer as unknown as SearchAnswer;
    },

    async substructure(b, requestId, deprecated, ctx = {}) {
      const space = byId.get(b.database_id);
      if (!space) return base.substructure(b, requestId, deprecated, ctx);
      const answer = await spaceSubstructure(
        pool,
        space,
        b as SpaceSubstructureRequest,
        requestId,
        deprecated,
        ctx,
      );
      return answer as unknown as SubstructureAnswer;
    },

    async cheese(b, requestId) {
      const space = byId.get(b.database_id);
      if (!space) return base.cheese(b, requestId);
      // The reranking answer is not the catalog cheese's type (which never returns): the route
      // schema is open, hence the casts.
      const req = b as unknown as SpaceCheeseRequest;
      if (req.scorer === 'shape' || req.scorer === 'esp')
        return (await spaceCheese3d(pool, space, { ...req, scorer: req.scorer }, requestId ?? '', shape, {
          budgetMs: opts.space3dBudgetMs,
        })) as never;
      return (await spaceCheese(pool, space, req, requestId ?? '')) as never;
    },

    async sample(b: SampleRequest, requestId: string) {
      const space = byId.get(b.database_id);
      if (!space) return base.sample(b, requestId);
      const t0 = performance.now();
      const seed = b.seed ?? Math.floor(Math.random() * 2 ** 32);
      const r = await pool.sample(space.manifest.id, b.count, seed);
      const results = r.products.map((p, i) => ({
        rank: i + 1,
        index: i,
        smiles: p.smiles,
        score: null,
        product_id: p.productId,
        price: null,
        reaction_id: p.reactionId,
        metric: 'sample',
        ...synthonsOut(b.include_synthons, p.synthons),
      }));
      const answer = {
        request_id: requestId,
        database_id: space.manifest.id,
        database_release: space.manifest.createdAt.slice(0, 10),
        metric: 'sample',
        scorer: 'sample',
        sampling_method: 'route_product_tuple',
        sampling_version: '1', // a string: the released v2 SDK rejects an integer
        seed,
        requested: b.count,
        returned: results.length,
        deduplicated: r.deduplicated,
        results,
        counts: { returned: results.length, deduplicated: r.deduplicated, invalid: r.invalid },
        timing_ms: { total: round3(performance.now() - t0) },
        warnings:
          results.length < b.count
            ? [{ code: 'catalog_exhausted', message: `returned ${results.length} distinct valid products` }]
            : [],
      };
      return answer as unknown as SampleAnswer;
    },
  };
}
