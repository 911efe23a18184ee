/**
 * v2 `search_cheese` with scorer `shape` or `esp` on a synthon space (docs/synthon-spaces.md, "3D
 * scorers"): the Morgan proposal is the space's own top-k search (the shortlist walk of `search`
 * and of scorer morgan: `limit × shortlist_multiplier` products, assembled, deduplicated and
 * prefiltered), the chem3d worker embeds the query (ETKDGv3, 10 conformers, seed 42) and the
 * shortlisted products (3 conformers: the catalogs' first-pass recipe) in batches on its query
 * queue within the request's time budget, and the exact 3D stage scores and ranks them as the 3D
 * synthon job does (engine/shape scoreEmbedded and rankBy3d). Every product costs an embedding
 * (~0.15 s of a core at 3 conformers), so the shortlist is bounded by MAX_SPACE_3D_SHORTLIST and
 * what is not embedded when the budget is spent is left out and counted (`timed_out` warning);
 * larger shortlists belong to a synthon job (POST /submit_synthongpt_job).
 */
import { DomainError, invalidSmiles, validationError } from '../../platform/errors.ts';
import { getRDKit, parseMolecule } from '../../engine/chem/index.ts';
import { rankBy3d } from '../../engine/shape/index.ts';
import type { SpacePool } from '../../engine/synthons/space-pool.ts';
import { CHEM3D_RETRY_AFTER_SECONDS } from './query-embedder.ts';
import { CHEESE_METRICS } from './shape-rerank.ts';
import type { ShapeSearchService } from './shape-search-contract.ts';
import type { SpaceEntry } from './space-search.ts';
import { ENGINE_VERSION, NO_PROPERTY_DROPS, round3 } from './v2-search-common.ts';
import {
  DEFAULT_SHORTLIST_MULTIPLIER,
  resolvePrefilter,
  type SpaceCheeseRequest,
} from './v2-space-structure.ts';

/** Products one synchronous 3D rerank of a space embeds at most (the default 10 × 10 fits). */
export const MAX_SPACE_3D_SHORTLIST = 100;
/** The proposal's longest time (the shortlist walk), when the request's budget leaves that much. */
const PROPOSAL_TIMEOUT_MS = 10_000;
/**
 * Conformers per shortlisted product: the catalogs' first pass (docs/chem3d.md: a third of the
 * embedding time of 10; exact shape scores keep Spearman r 0.983 against 10, ESP 0.711). The
 * query keeps 10, so every product is still scored over up to 10 × 3 conformer pairs.
 */
export const SPACE_3D_PRODUCT_CONFS = 3;
/**
 * The whole request's time budget (query embedding, proposal and the shortlist's embeddings): 10 s
 * below the API's 30 s synchronous deadline (SYNC_DEADLINE_MS, api/plugins/request-limits.ts),
 * left for the embedding workflow's answer, scoring and writing the answer: at 25 s the answers
 * took up to 29.1 s at load average 21 on 2 cores (docs/synthon-spaces.md). SPACE_3D_BUDGET_MS
 * overrides it (tests set it tiny).
 */
export const DEFAULT_SPACE_3D_BUDGET_MS = 20_000;
/** How the products and the query are put in 3D, and what proposes them. */
export const SPACE_3D_MODEL_VERSION =
  'rdkit.morgan2-2048/1 proposal; chem3d ETKDGv3 (query 10 conformers, products ' +
  `${SPACE_3D_PRODUCT_CONFS} conformers), seed 42, Gasteiger charges`;

/** What the 3D rerank needs of the shape search: the chem3d worker's embeddings and the exact stage. */
export type SpaceShape = Pick<ShapeSearchService, 'checkQuery' | 'embedShortlist' | 'scoreEmbedded'>;

/** 3D reranking of a space's Morgan shortlist (scorer shape or esp); the reranking result. */
export async function spaceCheese3d(
  pool: SpacePool,
  space: SpaceEntry,
  b: SpaceCheeseRequest & { scorer: 'shape' | 'esp' },
  requestId: string,
  shape: SpaceShape | undefined,
  opts: { budgetMs?: number } = {},
) {
  const t0 = performance.now();
  const budgetMs = opts.budgetMs ?? DEFAULT_SPACE_3D_BUDGET_MS;
  const metric = b.scorer;
  const q = parseMolecule(await getRDKit(), b.query_smiles);
  if ('error' in q) throw invalidSmiles(['body', 'query_smiles'], b.query_smiles, `SMILES (${q.error})`);
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
    // Within what the query's embedding left of the budget (at least a second: a proposal that
    // stops at once still returns the best found, and the shortlist then gets no time).
    timeoutMs: Math.max(1_000, Math.min(PROPOSAL_TIMEOUT_MS, budgetMs - (t1 - t0))),
  });
  const t2 = performance.now();
  // The shortlist gets what the query's embedding and the proposal left of the budget.
  const embedded = await shape.embedShortlist(
    r.hits.map((h) => h.smiles),
    { budgetMs: Math.floor(budgetMs - (t2 - t0)), confs: SPACE_3D_PRODUCT_CONFS },
  );
  const scores = await shape.scoreEmbedded(
    query,
    embedded.molecules.map((e) => (e?.ok ? e.molecule : null)),
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
  const failed = embedded.molecules.filter((e) => e && !e.ok).length;
  const late = embedded.molecules.filter((e) => e === null).length;
  const warnings: Array<{ code: string; message: string }> = [];
  const stopped = [
    ...(r.timedOut
      ? ['the Morgan proposal stopped at its time budget; the shortlist is the best found']
      : []),
    ...(late
      ? [
          `${late} of ${r.hits.length} shortlisted product(s) were not embedded in 3D within the request's ` +
            `${budgetMs / 1000} s budget and were not scored (counts.embedding_timed_out; the best by Morgan are embedded first)`,
        ]
      : []),
  ];
  if (stopped.length) warnings.push({ code: 'timed_out', message: stopped.join('; ') });
  if (failed)
    warnings.push({
      code: 'not_embedded',
      message: `${failed} proposed product(s) could not be embedded in 3D and were not scored`,
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
    // The distinct valid products proposed for 3D scoring (after duplicates and the prefilter);
    // counts.scored of them were embedded and scored.
    effective_shortlist: r.hits.length,
    timed_out: r.timedOut || late > 0,
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
      scored: r.hits.length - failed - late,
      // Not scored: embedding_failed (the worker cannot embed them) + embedding_timed_out (budget).
      not_embedded: failed + late,
      embedding_failed: failed,
      embedding_timed_out: late,
      ...NO_PROPERTY_DROPS,
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
