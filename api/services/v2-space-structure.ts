/**
 * v2 `search_substructure` (and the deprecated `substructure`) and `search_cheese` with scorer
 * `morgan` on synthon spaces (shape and esp: v2-space-cheese-3d.ts). withV2Spaces (v2-space-search.ts) dispatches here when the
 * `database_id` names a space; catalogs never reach this module. Queries, scorers and prefilters
 * are judged here on the caller's thread (microseconds), so invalid input never waits behind a
 * running search; the searches run on the space pool's thread.
 */
import { DomainError, invalidSmiles, validationError } from '../../platform/errors.ts';
import { getRDKit, parseMolecule, smilesPrecheck } from '../../engine/chem/index.ts';
import { functionalGroups } from '../../engine/filters/functional-groups.ts';
import type { SpacePool } from '../../engine/synthons/space-pool.ts';
import { parseQuery, SUBSTRUCTURE_LIMITS, type StructureMode } from '../../engine/synthons/substructure.ts';
import type { Prefilter } from '../../engine/synthons/rerank.ts';
import { ENGINE_VERSION, type CheeseRequest, type SubstructureRequest } from './v2-search.ts';
import { NO_PROPERTY_DROPS } from './v2-search-common.ts';
import type { SpaceEntry } from './space-search.ts';

const round3 = (ms: number) => Math.round(ms * 1000) / 1000;
/** Shortlists longer than this are cut (the stated bound of a synchronous rerank). */
export const MAX_SPACE_SHORTLIST = 5000;
export const DEFAULT_SHORTLIST_MULTIPLIER = 10;
const CHEESE_TIMEOUT_MS = 20_000;

export interface SpaceSubstructureRequest extends SubstructureRequest {
  search_mode?: StructureMode;
}
export interface SpaceCheeseRequest extends Omit<CheeseRequest, 'scorer'> {
  scorer: 'morgan' | 'shape' | 'esp';
  limit: number;
  shortlist_multiplier?: number;
  include_synthons: boolean;
  smarts_prefilter_pattern_id?: string;
  smarts_prefilter_pattern_label?: string;
  smarts_prefilter_pattern_smarts?: string;
  smarts_prefilter_mode?: 'include' | 'exclude';
}

type Synthons = Array<{ slot: number; synthonId: string; smiles: string }>;
const synthonsOut = (include: boolean, s: Synthons) =>
  include ? { synthons: s.map((x) => ({ slot: x.slot, synthon_id: x.synthonId, smiles: x.smiles })) } : {};
const release = (s: SpaceEntry) => s.manifest.createdAt.slice(0, 10);

/**
 * The prefilter named by id, label or SMARTS (several may be given if they name the same pattern);
 * undefined when none is. Unknown ids or labels and invalid SMARTS are 422s naming the field.
 */
export async function resolvePrefilter(b: SpaceCheeseRequest): Promise<Prefilter | undefined> {
  const mode = b.smarts_prefilter_mode ?? 'include';
  const named: Array<[string, string]> = [];
  const id = b.smarts_prefilter_pattern_id?.trim();
  const label = b.smarts_prefilter_pattern_label?.trim();
  const smarts = b.smarts_prefilter_pattern_smarts?.trim();
  if (id) {
    const p = functionalGroups().find((g) => g.id === id);
    if (!p)
      throw validationError(
        ['body', 'smarts_prefilter_pattern_id'],
        `unknown pattern ${JSON.stringify(id)}; the ids are listed by GET /smarts_patterns`,
      );
    named.push(['smarts_prefilter_pattern_id', p.smarts]);
  }
  if (label) {
    const p = functionalGroups().find((g) => g.label.toLowerCase() === label.toLowerCase());
    if (!p)
      throw validationError(
        ['body', 'smarts_prefilter_pattern_label'],
        `unknown pattern label ${JSON.stringify(label)}; the labels are listed by GET /smarts_patterns`,
      );
    named.push(['smarts_prefilter_pattern_label', p.smarts]);
  }
  if (smarts) {
    const rd = await getRDKit();
    const q = rd.get_qmol(smarts);
    const ok = !!q?.is_valid();
    q?.delete();
    if (!ok) throw invalidSmiles(['body', 'smarts_prefilter_pattern_smarts'], smarts, 'SMARTS');
    named.push(['smarts_prefilter_pattern_smarts', smarts]);
  }
  const other = named.find(([, s]) => s !== named[0][1]);
  if (other)
    throw validationError(
      ['body', other[0]],
      `names a different pattern than ${named[0][0]}; give one prefilter`,
    );
  return named.length ? { smarts: named[0][1], mode } : undefined;
}

/** Substructure or superstructure search over a space, with the catalog answer's fields. */
export async function spaceSubstructure(
  pool: SpacePool,
  space: SpaceEntry,
  b: SpaceSubstructureRequest,
  requestId: string,
  deprecated: boolean,
  ctx: { receivedAt?: number } = {},
) {
  const t0 = performance.now();
  const deadline = (ctx.receivedAt ?? Date.now()) + b.timeout_seconds * 1000;
  const mode = b.search_mode ?? 'substructure';
  const query =
    b.query ?? (b.query_smiles ? { format: 'smiles' as const, value: b.query_smiles } : undefined);
  if (!query)
    throw new DomainError('validation_error', '$.query: field required (or the deprecated query_smiles)', {
      issues: [{ loc: ['body', 'query'], msg: 'field required', type: 'value_error.missing' }],
    });
  const field = b.query ? ['body', 'query', 'value'] : ['body', 'query_smiles'];
  const bad = mode === 'superstructure' ? smilesPrecheck(query.value) : undefined;
  if (bad) throw invalidSmiles(field, query.value, `SMILES (${bad})`);
  try {
    parseQuery(await getRDKit(), query.value, 'query', query.format, mode).delete();
  } catch {
    throw invalidSmiles(
      field,
      query.value,
      mode !== 'superstructure'
        ? query.format.toUpperCase()
        : query.format === 'smarts'
          ? 'SMILES (superstructure finds the products inside a molecule, so the query is read as a SMILES molecule; SMARTS query features have no products inside them)'
          : 'SMILES',
    );
  }
  const t1 = performance.now();
  const r = await pool.substructure(space.manifest.id, query.value, {
    mode,
    format: query.format,
    maxHits: b.limit,
    deadline,
  });
  const results = r.hits.map((h, i) => ({
    rank: i + 1,
    smiles: h.smiles,
    score: 1,
    product_id: h.productId,
    price: null,
    reaction_id: h.reactionId,
    metric: mode,
    matched_atom_indices: h.matchedAtoms,
    matched_bond_indices: h.matchedBonds,
    ...synthonsOut(b.include_synthons, h.synthons),
  }));
  const products = space.manifest.counts.products;
  const warnings: Array<{ code: string; message: string }> = [];
  if (r.timedOut)
    warnings.push({
      code: 'timed_out',
      message:
        (r.examined >= SUBSTRUCTURE_LIMITS.maxProducts
          ? `stopped at the bound of ${SUBSTRUCTURE_LIMITS.maxProducts} assembled candidates`
          : `stopped at the ${b.timeout_seconds} s deadline (queueing included)`) +
        `, having decided ${Math.round(r.coverage * products)} of ${products} products; results are partial`,
    });
  if (deprecated)
    warnings.push({
      code: 'deprecated',
      message: 'POST /api/v2/substructure is deprecated; use POST /api/v2/search_substructure',
    });
  const total = performance.now() - t0;
  return {
    request_id: requestId,
    database_id: space.manifest.id,
    database_release: release(space),
    engine_version: ENGINE_VERSION,
    metric: mode,
    scorer: mode,
    search_mode: mode,
    query,
    query_smiles: query.value,
    results,
    timed_out: r.timedOut,
    coverage_fraction: r.coverage,
    indexed_products: products,
    available_products: products,
    indexed_reactions: space.manifest.counts.reactions,
    available_reactions: space.manifest.counts.reactions,
    counts: {
      returned: results.length,
      native_candidates: r.examined,
      exact_mismatches: r.examined - r.invalid - results.length,
      prefiltered: r.screened,
      invalid: r.invalid,
      duplicate_products: 0,
    },
    timing_ms: { query: round3(t1 - t0), search: round3(total - (t1 - t0)), total: round3(total) },
    warnings,
  };
}

/** Morgan reranking over a space (scorer `morgan`); shape and esp are v2-space-cheese-3d.ts's. */
export async function spaceCheese(
  pool: SpacePool,
  space: SpaceEntry,
  b: SpaceCheeseRequest,
  requestId: string,
) {
  const t0 = performance.now();
  if (b.scorer !== 'morgan')
    throw new DomainError(
      'capability_unavailable',
      `scorer ${b.scorer} is not available on synthon space ${space.manifest.id}; use scorer morgan`,
      {
        issues: [
          {
            loc: ['body', 'scorer'],
            msg: `${b.scorer} is not served on synthon spaces; use morgan`,
            type: 'value_error.unavailable',
          },
        ],
      },
    );
  const q = parseMolecule(await getRDKit(), b.query_smiles);
  if ('error' in q) throw invalidSmiles(['body', 'query_smiles'], b.query_smiles, `SMILES (${q.error})`);
  const prefilter = await resolvePrefilter(b);
  const multiplier = b.shortlist_multiplier ?? DEFAULT_SHORTLIST_MULTIPLIER;
  const shortlist = Math.min(MAX_SPACE_SHORTLIST, b.limit * multiplier);
  const t1 = performance.now();
  const r = await pool.rerank(space.manifest.id, q.fp, {
    limit: b.limit,
    shortlist,
    prefilter,
    timeoutMs: CHEESE_TIMEOUT_MS,
  });
  const results = r.hits.map((h, i) => ({
    rank: i + 1,
    smiles: h.smiles,
    score: h.similarity,
    proposal_score: h.similarity,
    product_id: h.productId,
    price: null,
    reaction_id: h.reactionId,
    metric: 'rdkit.ecfp4_tanimoto',
    ...synthonsOut(b.include_synthons, h.synthons),
  }));
  const warnings: Array<{ code: string; message: string }> = [];
  if (r.timedOut)
    warnings.push({
      code: 'timed_out',
      message: 'the shortlist walk stopped at its time budget; results are the best found',
    });
  if (b.limit * multiplier > MAX_SPACE_SHORTLIST)
    warnings.push({
      code: 'shortlist_capped',
      message: `the shortlist is capped at ${MAX_SPACE_SHORTLIST} products`,
    });
  const total = performance.now() - t0;
  return {
    request_id: requestId,
    database_id: space.manifest.id,
    database_release: release(space),
    engine_version: ENGINE_VERSION,
    model_version: null,
    scorer: 'morgan',
    metric: 'rdkit.ecfp4_tanimoto',
    query_smiles: q.canonicalSmiles,
    timed_out: r.timedOut,
    shortlist_multiplier: multiplier,
    effective_shortlist: shortlist,
    smarts_prefilter: prefilter ?? null,
    exact_property_postfilter: false,
    property_constraints: {},
    results,
    counts: {
      ...r.counts,
      ...NO_PROPERTY_DROPS,
    },
    timing_ms: {
      query: round3(t1 - t0),
      proposal: round3(r.timingMs.proposal),
      assembly_and_scoring: round3(r.timingMs.assembly_and_scoring + r.timingMs.prefilter),
      total: round3(total),
    },
    warnings,
  };
}
