/**
 * Executes a normalized selection over an enumerated library:
 *  1. pushdown: presets and property constraints as a row mask over the stored columns;
 *  2. candidates: for a ranked strategy the limit × shortlist_multiplier nearest neighbours (ECFP4
 *     Tanimoto) of each objective's reference among the masked rows; for a sample strategy a
 *     seeded draw of the masked rows;
 *  3. exact post-filters with RDKit on the candidates (structures, scaffold relationships);
 *  4. portfolio: max_per_scaffold, then limit.
 * Objectives with a 3D metric id (cheese.shape, cheese.electrostatic) are scored outside the engine
 * (the 3D search path needs the chem3d worker and the catalog's conformers): the caller passes
 * their candidates and scores as ExternalObjectiveScores, plain data that crosses to a thread.
 */
import { DomainError, invalidSmiles } from '../../platform/errors.ts';
import { DESCRIPTOR_NAMES, getRDKit, parseMolecule, tanimoto, type RDKitMol } from '../chem/index.ts';
import { computedProperties, postfilterTests, priceWarning } from './candidate-properties.ts';
import { constraintExecution } from './constraint-report.ts';
import { compileConditions, passes, propertyTests, pushdownMask, structuresPass } from './constraints.ts';
import type { Library } from './library.ts';
import { sampleIndices } from './prng.ts';
import { AVAILABLE_METRIC_IDS, METRIC_IDS, type MetricId, type NormalizedSelection } from './spec.ts';

export { constraintExecution } from './constraint-report.ts';

/** Metric ids the engine scores itself; the others need ExternalObjectiveScores. */
export const ENGINE_METRIC_IDS: readonly MetricId[] = AVAILABLE_METRIC_IDS;

/** Candidates and scores of the objectives the engine cannot score (3D metric ids). */
export interface ExternalObjectiveScores {
  /**
   * The candidate rows (library row numbers) of a ranked selection: the caller's proposals for
   * every objective, its own and the engine's alike (the pushdown mask still applies to them).
   */
  rows: Int32Array;
  /** Per index into `objectives`, for each external objective: its score for each entry of `rows` (NaN: none). */
  scores: Record<number, Float64Array>;
  /** How the candidates were proposed (the execution plan's `candidate_generation`). */
  generation: string;
}

/** Key of an objective's component: its reference id, or metric:reference for the 3D metrics. */
const componentKey = (o: { metric_id: MetricId; reference_id: string }) =>
  ENGINE_METRIC_IDS.includes(o.metric_id) ? o.reference_id : `${o.metric_id}:${o.reference_id}`;

export interface SelectionHit {
  rank: number;
  product_id: string;
  smiles: string;
  score: number | null;
  metric: string;
  price: number | null;
  reaction_id: null;
  scaffold: string;
  properties?: Record<string, number | null>;
  objective_components?: Record<string, number>;
  constraint_evidence?: Record<string, unknown>[];
}

export interface SelectionOutcome {
  results: SelectionHit[];
  counts: {
    catalog_rows: number;
    pushdown_passed: number;
    candidates: number;
    exact_evaluated: number;
    postfilter_rejected: number;
    scaffold_capped: number;
    returned: number;
  };
  execution_plan: Record<string, unknown>;
  timing_ms: Record<string, number>;
  warnings: { code: string; message: string }[];
}

/**
 * The metric a selection's hits are scored by: its one objective metric, or `mean_objective` when
 * several are averaged (objective_components has each).
 */
export function selectionMetric(sel: NormalizedSelection): string {
  const metrics = [...new Set(sel.objectives.map((o) => o.metric_id))];
  return metrics.length > 1 ? 'mean_objective' : (metrics[0] ?? 'rdkit.ecfp4_tanimoto');
}

/**
 * Throws capability_unavailable when the selection needs a scorer that is not offered; `available`
 * is the engine's own metrics, plus the 3D ones where the caller can score them.
 */
export function checkCapabilities(
  sel: NormalizedSelection,
  available: readonly MetricId[] = ENGINE_METRIC_IDS,
): void {
  sel.objectives.forEach((o, i) => {
    if (!available.includes(o.metric_id)) {
      throw new DomainError(
        'capability_unavailable',
        `$.objectives[${i}].metric_id: ${o.metric_id} needs the shape/electrostatic scorer, which this deployment does not offer for this request (3D metric ids are served by synchronous selections on 3D-ready catalogs, not by run items); available: ${available.join(', ')}`,
      );
    }
  });
}

/** True when some objective has a metric the engine does not score itself. */
export const needsExternalScores = (sel: NormalizedSelection): boolean =>
  sel.objectives.some((o) => !ENGINE_METRIC_IDS.includes(o.metric_id));

function drawSample(lib: Library, sel: NormalizedSelection, mask: Uint8Array | undefined, passing: number) {
  let rows: Int32Array | undefined;
  if (mask) {
    rows = new Int32Array(passing);
    for (let r = 0, j = 0; r < lib.size; r++) if (mask[r]) rows[j++] = r;
  }
  const shortlist = sel.portfolio.limit * sel.execution.shortlist_multiplier;
  return sampleIndices(lib.size, shortlist, sel.execution.seed, rows);
}

/**
 * The candidate rows of a sample strategy: the seeded draw among the rows passing the pushdown,
 * the same draw executeSelection makes (a caller scoring 3D objectives scores exactly these).
 */
export function sampleRows(lib: Library, sel: NormalizedSelection): Int32Array {
  const { mask, passing } = pushdownMask(lib, propertyTests(sel), sel.constraints.price);
  return drawSample(lib, sel, mask, passing);
}

/** Runs `sel` on `lib` (whose id and release normalization already checked). Throws AppErrors for bad queries. */
export async function executeSelection(
  lib: Library,
  sel: NormalizedSelection,
  external?: ExternalObjectiveScores,
): Promise<SelectionOutcome> {
  const t0 = performance.now();
  checkCapabilities(sel, external ? METRIC_IDS : ENGINE_METRIC_IDS);
  const rd = await getRDKit();
  const refs = new Map<string, { fp: Uint8Array; scaffold: string }>();
  sel.references.forEach((r, i) => {
    const p = parseMolecule(rd, r.structure.value);
    if ('error' in p) throw invalidSmiles(['body', 'references', i, 'structure', 'value'], r.structure.value);
    refs.set(r.id, { fp: p.fp, scaffold: p.scaffold });
  });
  const limit = sel.portfolio.limit;
  const shortlist = limit * sel.execution.shortlist_multiplier;
  const tests = propertyTests(sel);
  const { mask, passing, price: priceScan } = pushdownMask(lib, tests, sel.constraints.price);
  const postTests = postfilterTests(lib, tests);
  const t1 = performance.now();

  let candidates: Int32Array;
  if (sel.strategy.type === 'sample') {
    candidates = drawSample(lib, sel, mask, passing);
  } else if (external) {
    candidates = mask ? external.rows.filter((r) => mask[r]) : external.rows;
  } else {
    const seen = new Set<number>();
    for (const o of sel.objectives) {
      const knn = await lib.knn(refs.get(o.reference_id)!.fp, shortlist, mask);
      for (const r of knn.rows) seen.add(r);
    }
    candidates = Int32Array.from(seen);
  }
  const externalIndex = new Map(external ? Array.from(external.rows, (r, i) => [r, i]) : []);
  let unscored = 0;
  const scored = Array.from(candidates, (row, order) => {
    const components: Record<string, number> = {};
    let sum = 0;
    for (const [i, o] of sel.objectives.entries()) {
      // Exact doubles: the same pair scores the same here as in /molsearch and /api/v2/search.
      const s = ENGINE_METRIC_IDS.includes(o.metric_id)
        ? tanimoto(refs.get(o.reference_id)!.fp, lib.fingerprint(row))
        : (external!.scores[i]?.[externalIndex.get(row) ?? -1] ?? NaN);
      components[componentKey(o)] = s;
      sum += s;
    }
    return {
      row,
      order,
      score: sel.objectives.length ? sum / sel.objectives.length : null,
      components,
    };
  }).filter((c) => {
    // A row without a 3D model (a 3D reject of the catalog) has no 3D score: not a candidate.
    const ok = c.score === null || !Number.isNaN(c.score);
    if (!ok) unscored++;
    return ok;
  });
  if (sel.strategy.type === 'ranked') scored.sort((a, b) => b.score! - a.score! || a.row - b.row);
  const t2 = performance.now();

  const compiled = compileConditions(rd, sel);
  const hasStructures = compiled.all.length + compiled.any.length + compiled.none.length > 0;
  const refScaffolds = sel.constraints.relationships.map((r) => refs.get(r.reference_id)!.scaffold);
  const wantEvidence = sel.include.includes('constraint_evidence');
  const wantProps = sel.include.includes('properties');
  const perScaffold = new Map<string, number>();
  const results: SelectionHit[] = [];
  const hitMetric = selectionMetric(sel);
  let evaluated = 0,
    rejected = 0,
    capped = 0;
  try {
    for (const c of scored) {
      if (results.length >= limit) break;
      evaluated++;
      const scaffold = lib.scaffold(c.row);
      const evidence: Record<string, unknown>[] | undefined = wantEvidence ? [] : undefined;
      if (refScaffolds.some((s) => s === scaffold)) {
        rejected++;
        continue;
      }
      if (hasStructures) {
        let mol: RDKitMol | null = null;
        try {
          mol = rd.get_mol(lib.smiles(c.row));
          if (
            !mol ||
            !mol.is_valid() ||
            !structuresPass(mol, compiled, sel.constraints.structures.any.minimum, evidence)
          ) {
            rejected++;
            continue;
          }
        } finally {
          mol?.delete();
        }
      }
      const computed = postTests.length ? computedProperties(rd, lib.smiles(c.row)) : undefined;
      if (
        postTests.length &&
        (!computed || !postTests.every((t) => passes(t, computed[t.property_id as keyof typeof computed])))
      ) {
        rejected++;
        continue;
      }
      const max = sel.portfolio.max_per_scaffold;
      if (max !== undefined) {
        const n = perScaffold.get(scaffold) ?? 0;
        if (n >= max) {
          capped++;
          continue;
        }
        perScaffold.set(scaffold, n + 1);
      }
      if (evidence && sel.constraints.relationships.length)
        evidence.push({ path: '$.constraints.relationships', scaffold, passed: true });
      const hit: SelectionHit = {
        rank: results.length + 1,
        product_id: lib.productId(c.row),
        smiles: lib.smiles(c.row),
        score: c.score,
        metric: hitMetric,
        price: lib.price(c.row),
        reaction_id: null,
        scaffold,
      };
      const value = (id: string) =>
        nullIfNaN(lib.column(id)?.[c.row] ?? computed?.[id as keyof typeof computed]);
      if (wantProps)
        // Only values that exist: the released SDK's Hit.properties (dict[str, float]) refuses null.
        hit.properties = Object.fromEntries(
          [...DESCRIPTOR_NAMES, ...Object.keys(computed ?? {})].flatMap((n) => {
            const v = value(n);
            return v === null ? [] : [[n, v]];
          }),
        );
      if (sel.include.includes('objective_components')) hit.objective_components = c.components;
      if (evidence) {
        for (const t of tests)
          evidence.push({
            path: t.path,
            property_id: t.property_id,
            value: value(t.property_id),
            passed: true,
          });
        if (sel.constraints.price)
          evidence.push({ path: '$.constraints.price', price: hit.price, passed: true });
        hit.constraint_evidence = evidence;
      }
      results.push(hit);
    }
  } finally {
    compiled.free();
  }
  const t3 = performance.now();
  const warnings: SelectionOutcome['warnings'] = [];
  const unattainable = priceWarning(sel.constraints.price, priceScan);
  if (unattainable) warnings.push(unattainable);
  if (unscored)
    warnings.push({
      code: 'no_3d_model',
      message: `${unscored} candidate(s) have no 3D model in this catalog (see its 3D rejects) and were not scored`,
    });
  if (results.length < limit) {
    warnings.push({
      code: 'portfolio_underfilled',
      message: `${results.length} of ${limit} molecules met every constraint among ${scored.length} candidates; raise execution.shortlist_multiplier or relax constraints`,
    });
  }
  return {
    results,
    counts: {
      catalog_rows: lib.size,
      pushdown_passed: passing,
      candidates: scored.length,
      exact_evaluated: evaluated,
      postfilter_rejected: rejected,
      scaffold_capped: capped,
      returned: results.length,
    },
    execution_plan: {
      strategy: sel.strategy.type,
      candidate_generation:
        sel.strategy.type === 'sample'
          ? 'seeded_sample'
          : (external?.generation ?? 'exact_knn_ecfp4_tanimoto'),
      shortlist_size: shortlist,
      pushdown: tests.length > postTests.length || sel.constraints.price ? 'row_mask' : 'none',
      constraint_execution: constraintExecution(sel),
    },
    timing_ms: {
      pushdown: round(t1 - t0),
      candidate_generation: round(t2 - t1),
      exact_evaluation: round(t3 - t2),
      total: round(t3 - t0),
    },
    warnings,
  };
}

const round = (ms: number) => Math.round(ms * 100) / 100;
const nullIfNaN = (v: number | undefined) => (v === undefined || Number.isNaN(v) ? null : v);
