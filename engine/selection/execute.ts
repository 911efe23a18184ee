/**
 * Executes a normalized selection over an enumerated library:
 *  1. pushdown: presets and property constraints as a row mask over the stored columns;
 *  2. candidates: for a ranked strategy the limit × shortlist_multiplier nearest neighbours (ECFP4
 *     Tanimoto) of each objective's reference among the masked rows; for a sample strategy a
 *     seeded draw of the masked rows;
 *  3. exact post-filters with RDKit on the candidates (structures, scaffold relationships);
 *  4. portfolio: max_per_scaffold, then limit.
 */
import { DomainError, invalidSmiles } from '../../platform/errors.ts';
import { DESCRIPTOR_NAMES, getRDKit, parseMolecule, tanimoto, type RDKitMol } from '../chem/index.ts';
import { compileConditions, propertyTests, pushdownMask, structuresPass } from './constraints.ts';
import type { Library } from './library.ts';
import { sampleIndices } from './prng.ts';
import { AVAILABLE_METRIC_IDS, type NormalizedSelection } from './spec.ts';

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

/** The constraint_execution report of validation: how each constraint runs. */
export function constraintExecution(
  sel: NormalizedSelection,
): { path: string; status: string; message: string }[] {
  const out: { path: string; status: string; message: string }[] = [];
  sel.constraints.presets.forEach((p, i) =>
    out.push({
      path: `$.constraints.presets[${i}]`,
      status: 'exact_pushdown',
      message: `${p.preset_id}@${p.version} evaluated exactly on stored descriptors before candidate generation`,
    }),
  );
  sel.constraints.properties.forEach((p, i) =>
    out.push({
      path: `$.constraints.properties[${i}]`,
      status: 'exact_pushdown',
      message: `${p.property_id} ${p.operator} evaluated exactly on stored values before candidate generation`,
    }),
  );
  const s = sel.constraints.structures;
  s.all.forEach((_, i) =>
    out.push({
      path: `$.constraints.structures.all[${i}]`,
      status: 'exact_postfilter',
      message: 'RDKit substructure match on each candidate',
    }),
  );
  s.any.conditions.forEach((_, i) =>
    out.push({
      path: `$.constraints.structures.any.conditions[${i}]`,
      status: 'exact_postfilter',
      message: 'RDKit substructure match on each candidate',
    }),
  );
  s.none.forEach((_, i) =>
    out.push({
      path: `$.constraints.structures.none[${i}]`,
      status: 'exact_postfilter',
      message: 'RDKit substructure match on each candidate',
    }),
  );
  sel.constraints.relationships.forEach((_, i) =>
    out.push({
      path: `$.constraints.relationships[${i}]`,
      status: 'exact_postfilter',
      message: 'RDKit Bemis-Murcko scaffold compared on each candidate',
    }),
  );
  return out;
}

/** Throws capability_unavailable when the selection needs a scorer that does not exist yet. */
export function checkCapabilities(sel: NormalizedSelection): void {
  sel.objectives.forEach((o, i) => {
    if (!(AVAILABLE_METRIC_IDS as readonly string[]).includes(o.metric_id)) {
      throw new DomainError(
        'capability_unavailable',
        `$.objectives[${i}].metric_id: ${o.metric_id} needs the shape/electrostatic scorer, which this deployment does not offer yet; available: ${AVAILABLE_METRIC_IDS.join(', ')}`,
      );
    }
  });
}

/** Runs `sel` on `lib` (whose id and release normalization already checked). Throws AppErrors for bad queries. */
export async function executeSelection(lib: Library, sel: NormalizedSelection): Promise<SelectionOutcome> {
  const t0 = performance.now();
  checkCapabilities(sel);
  const rd = await getRDKit();
  const refs = new Map<string, { fp: Uint8Array; scaffold: string }>();
  sel.references.forEach((r, i) => {
    const p = parseMolecule(rd, r.structure.value);
    if ('error' in p) throw invalidSmiles(['body', 'references', i, 'structure', 'value'], r.structure.value);
    refs.set(r.id, { fp: p.fp, scaffold: p.scaffold });
  });
  const limit = sel.portfolio.limit;
  const shortlist = limit * sel.execution.shortlist_multiplier;
  const { mask, passing } = pushdownMask(lib, propertyTests(sel));
  const t1 = performance.now();

  let candidates: Int32Array;
  if (sel.strategy.type === 'sample') {
    let rows: Int32Array | undefined;
    if (mask) {
      rows = new Int32Array(passing);
      for (let r = 0, j = 0; r < lib.size; r++) if (mask[r]) rows[j++] = r;
    }
    candidates = sampleIndices(lib.size, shortlist, sel.execution.seed, rows);
  } else {
    const seen = new Set<number>();
    for (const o of sel.objectives) {
      const knn = await lib.knn(refs.get(o.reference_id)!.fp, shortlist, mask);
      for (const r of knn.rows) seen.add(r);
    }
    candidates = Int32Array.from(seen);
  }
  const scored = Array.from(candidates, (row, order) => {
    const components: Record<string, number> = {};
    let sum = 0;
    for (const o of sel.objectives) {
      // Exact doubles: the same pair scores the same here as in /molsearch and /api/v2/search.
      const s = tanimoto(refs.get(o.reference_id)!.fp, lib.fingerprint(row));
      components[o.reference_id] = s;
      sum += s;
    }
    return {
      row,
      order,
      score: sel.objectives.length ? sum / sel.objectives.length : null,
      components,
    };
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
        metric: 'rdkit.ecfp4_tanimoto',
        price: lib.price(c.row),
        reaction_id: null,
        scaffold,
      };
      if (wantProps)
        hit.properties = Object.fromEntries(
          DESCRIPTOR_NAMES.map((n) => [n, nullIfNaN(lib.column(n)?.[c.row])]),
        );
      if (sel.include.includes('objective_components')) hit.objective_components = c.components;
      if (evidence) {
        for (const t of propertyTests(sel))
          evidence.push({
            path: t.path,
            property_id: t.property_id,
            value: nullIfNaN(lib.column(t.property_id)?.[c.row]),
            passed: true,
          });
        hit.constraint_evidence = evidence;
      }
      results.push(hit);
    }
  } finally {
    compiled.free();
  }
  const t3 = performance.now();
  const warnings: SelectionOutcome['warnings'] = [];
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
      candidate_generation: sel.strategy.type === 'ranked' ? 'exact_knn_ecfp4_tanimoto' : 'seeded_sample',
      shortlist_size: shortlist,
      pushdown: propertyTests(sel).length ? 'row_mask' : 'none',
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
