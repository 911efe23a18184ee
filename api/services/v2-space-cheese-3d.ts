/**
 * v2 `search_cheese` with scorer `shape` or `esp` on a synthon space (docs/synthon-spaces.md, "3D
 * scorers"): the Morgan proposal is the space's own top-k search (the shortlist walk of `search`
 * and of scorer morgan: `limit × shortlist_multiplier` products, assembled, deduplicated and
 * prefiltered), the chem3d worker embeds the query and every shortlisted product (ETKDGv3, 10
 * conformers, seed 42: the recipe of catalogs and 3D synthon jobs), and the exact 3D stage scores
 * and ranks them as the 3D synthon job does (engine/shape scoreEmbedded and rankBy3d). Every
 * product costs an embedding (~0.1–0.5 s, two at a time), so the shortlist is bounded by
 * MAX_SPACE_3D_SHORTLIST; larger ones belong to a synthon job (POST /submit_synthongpt_job).
 */
import { DomainError, invalidSmiles, validationError } from '../../platform/errors.ts';
import { getRDKit, parseMolecule } from '../../engine/chem/index.ts';
import { rankBy3d } from '../../engine/shape/index.ts';
import type { SpacePool } from '../../engine/synthons/space-pool.ts';
import { CHEM3D_RETRY_AFTER_SECONDS } from './query-embedder.ts';
import { CHEESE_METRICS } from './shape-rerank.ts';
import type { ShapeSearchService } from './shape-search-contract.ts';
import type { SpaceEntry } from './space-search.ts';
import { ENGINE_VERSION, round3 } from './v2-search-common.ts';
import {
  DEFAULT_SHORTLIST_MULTIPLIER,
  resolvePrefilter,
  type SpaceCheeseRequest,
} from './v2-space-structure.ts';

/** Products one synchronous 3D rerank of a space embeds at most (the default 10 × 10 fits). */
export const MAX_SPACE_3D_SHORTLIST = 100;
/** The proposal's time budget (the shortlist walk); the embeddings have their own deadlines. */
const PROPOSAL_TIMEOUT_MS = 10_000;
/** How the products and the query are put in 3D, and what proposes them. */
export const SPACE_3D_MODEL_VERSION =
  'rdkit.morgan2-2048/1 proposal; chem3d ETKDGv3 × 10 conformers, seed 42, Gasteiger charges';

/** What the 3D rerank needs of the shape search: the chem3d worker's embeddings and the exact stage. */
export type SpaceShape = Pick<ShapeSearchService, 'checkQuery' | 'embedMany' | 'scoreEmbedded'>;

/** 3D reranking of a space's Morgan shortlist (scorer shape or esp); the reranking result. */
export async function spaceCheese3d(
  pool: SpacePool,
  space: SpaceEntry,
  b: SpaceCheeseRequest & { scorer: 'shape' | 'esp' },
  requestId: string,
  shape: SpaceShape | undefined,
) {
  const t0 = performance.now();
  const metric = b.scorer;
  const q = parseMolecule(await getRDKit(), b.query_smiles);
  if ('error' in q) throw invalidSmiles(['body', 'query_smiles'], b.query_smiles);
  const prefilter = await resolvePrefilter(b);
  const multiplier = b.shortlist_multiplier ?? DEFAULT_SHORTLIST_MULTIPLIER;
  const shortlist = b.limit * multiplier;
  if (shortlist > MAX_SPACE_3D_SHORTLIST)
    throw validationError(
      ['body', b.shortlist_multiplier === undefined ? 'limit' : 'shortlist_multiplier'],
      `scorer ${metric} on a synthon space embeds every proposed product in 3D: limit × shortlist_multiplier ` +
        `must be at most ${MAX_SPACE_3D_SHORTLIST} (got ${b.limit} × ${multiplier} = ${shortlist}); ` +
        'for more, submit a synthon job (POST /submit_synthongpt_job with synthon_scorer) or use scorer morgan',
      'value_error.too_large',
    );
  if (!shape)
    throw new DomainError(
      'unavailable',
      `3D scoring (scorer ${metric}) is unavailable: no 3D worker is configured; scorer morgan still works`,
      { retryAfterSeconds: CHEM3D_RETRY_AFTER_SECONDS },
    );
  // Embedded first: an unembeddable query (422) or a missing worker (503) fails before any work.
  const query = await shape.checkQuery(b.query_smiles, ['body', 'query_smiles']);
  const t1 = performance.now();
  const r = await pool.rerank(space.manifest.id, q.fp, {
    limit: shortlist,
    shortlist,
    prefilter,
    timeoutMs: PROPOSAL_TIMEOUT_MS,
  });
  const t2 = performance.now();
  const embedded = await shape.embedMany(
    r.hits.map((h) => h.smiles),
    ['body', 'query_smiles'],
  );
  const scores = await shape.scoreEmbedded(
    query,
    embedded.map((e) => (e.ok ? e.molecule : null)),
    metric,
  );
  const ranked = rankBy3d(r.hits, scores, metric, b.limit);
  const t3 = performance.now();
  const results = ranked.map(({ item: h, score }, i) => ({
    rank: i + 1,
    smiles: h.smiles,
    score: score[metric],
    proposal_score: h.similarity,
    product_id: h.productId,
    price: null,
    reaction_id: h.reactionId,
    metric: CHEESE_METRICS[metric],
    scores: { shape: score.shape, esp: score.esp, morgan: h.similarity },
    ...(b.include_synthons
      ? { synthons: h.synthons.map((x) => ({ slot: x.slot, synthon_id: x.synthonId, smiles: x.smiles })) }
      : {}),
  }));
  const unembedded = embedded.filter((e) => !e.ok).length;
  const warnings: Array<{ code: string; message: string }> = [];
  if (r.timedOut)
    warnings.push({
      code: 'timed_out',
      message: 'the Morgan proposal stopped at its time budget; the shortlist is the best found',
    });
  if (unembedded)
    warnings.push({
      code: 'not_embedded',
      message: `${unembedded} proposed product(s) could not be embedded in 3D and were not scored`,
    });
  return {
    request_id: requestId,
    database_id: space.manifest.id,
    database_release: space.manifest.createdAt.slice(0, 10),
    engine_version: ENGINE_VERSION,
    model_version: SPACE_3D_MODEL_VERSION,
    scorer: metric,
    metric: CHEESE_METRICS[metric],
    query_smiles: q.canonicalSmiles,
    shortlist_multiplier: multiplier,
    // The distinct valid products embedded and scored exactly (after duplicates and the prefilter).
    effective_shortlist: r.hits.length,
    smarts_prefilter: prefilter ?? null,
    exact_property_postfilter: false,
    property_constraints: {},
    property_preset: null,
    admet_acquisition_models: {},
    admet_acquisition_semantics: 'none',
    results,
    counts: {
      ...r.counts,
      returned: results.length,
      not_embedded: unembedded,
      exact_constraint_dropped: 0,
      exact_property_dropped: 0,
      additive_property_dropped: 0,
      property_approximation_unavailable: 0,
      admet_acquisition_dropped: 0,
      admet_out_of_domain: 0,
    },
    timing_ms: {
      // Parsing and embedding the query on the chem3d worker.
      query: round3(t1 - t0),
      proposal: round3(r.timingMs.proposal),
      // Assembly and prefilter of the shortlist, its embeddings, and the exact 3D scores.
      assembly_and_scoring: round3(r.timingMs.assembly_and_scoring + r.timingMs.prefilter + (t3 - t2)),
      total: round3(performance.now() - t0),
    },
    warnings,
  };
}
