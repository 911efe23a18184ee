/**
 * Constraint evaluation. Property constraints and presets are pushed down: evaluated exactly on the
 * catalog's stored columns before candidate generation (a row mask). Structure conditions and
 * scaffold relationships run exactly on the shortlist with RDKit (post-filters).
 */
import { DomainError } from '../../platform/errors.ts';
import type { RDKitModule, RDKitMol } from '../chem/index.ts';
import { applyPriceMask, type PriceScan } from './candidate-properties.ts';
import type { Library } from './library.ts';
import { isComputedProperty } from './property-ids.ts';
import {
  PRESETS,
  type PriceConstraint,
  type NormalizedSelection,
  type PropertyConstraint,
  type StructureCondition,
} from './spec.ts';

/** A property test with the document path it came from (for evidence and execution reports). */
export interface PropertyTest {
  path: string;
  property_id: string;
  operator: PropertyConstraint['operator'];
  value: PropertyConstraint['value'];
  missing: 'reject' | 'accept';
}

/** Presets expanded to their property tests, followed by the explicit property constraints. */
export function propertyTests(sel: NormalizedSelection): PropertyTest[] {
  const tests: PropertyTest[] = [];
  sel.constraints.presets.forEach((p, i) => {
    const rules = (
      PRESETS[p.preset_id].versions as Record<
        string,
        readonly { property_id: string; operator: string; value: number }[]
      >
    )[p.version];
    for (const r of rules)
      tests.push({
        path: `$.constraints.presets[${i}]`,
        property_id: r.property_id,
        operator: r.operator as PropertyTest['operator'],
        value: r.value,
        missing: 'reject',
      });
  });
  sel.constraints.properties.forEach((c, i) =>
    tests.push({
      path: `$.constraints.properties[${i}]`,
      property_id: c.property_id,
      operator: c.operator,
      value: c.value,
      missing: c.missing,
    }),
  );
  return tests;
}

/** Whether `x` satisfies one test; NaN (missing) follows the test's missing policy. */
export function passes(t: PropertyTest, x: number): boolean {
  if (Number.isNaN(x)) return t.missing === 'accept';
  const v = t.value;
  switch (t.operator) {
    case 'gt':
      return x > (v as number);
    case 'gte':
      return x >= (v as number);
    case 'lt':
      return x < (v as number);
    case 'lte':
      return x <= (v as number);
    case 'range':
      return x >= (v as { lower: number }).lower && x <= (v as { upper: number }).upper;
  }
}

/**
 * The pushdown mask (1 = row passes every stored-column test and the price bound) and the number
 * of passing rows; undefined mask when there is neither. Pure column scans, O(rows × tests).
 */
export function pushdownMask(
  lib: Library,
  tests: PropertyTest[],
  price?: PriceConstraint,
): { mask?: Uint8Array; passing: number; price?: PriceScan } {
  if (!tests.length && !price) return { passing: lib.size };
  const mask = new Uint8Array(lib.size).fill(1);
  for (const t of tests) {
    const col = lib.column(t.property_id);
    // Not stored but computable: evaluated on each candidate instead (candidate-properties.ts).
    if (!col && isComputedProperty(t.property_id)) continue;
    if (!col)
      throw new DomainError(
        'capability_unavailable',
        `property ${t.property_id} is not available for ${lib.info.database_id}`,
      );
    for (let r = 0; r < lib.size; r++) if (mask[r] && !passes(t, col[r])) mask[r] = 0;
  }
  const scan = price ? applyPriceMask(lib, price, mask) : undefined;
  let passing = 0;
  for (let r = 0; r < lib.size; r++) passing += mask[r];
  return { mask, passing, price: scan };
}

export interface CompiledCondition {
  path: string;
  cond: StructureCondition;
  query: RDKitMol;
}

/** Parses each structure query (SMARTS with get_qmol, SMILES as a molecule); invalid ones are 422s. */
export function compileConditions(
  rd: RDKitModule,
  sel: NormalizedSelection,
): { all: CompiledCondition[]; any: CompiledCondition[]; none: CompiledCondition[]; free(): void } {
  const made: RDKitMol[] = [];
  const compile = (list: StructureCondition[], base: string): CompiledCondition[] =>
    list.map((cond, i) => {
      const path = `${base}[${i}]`;
      let q: RDKitMol | null = null;
      try {
        q = cond.query.format === 'smarts' ? rd.get_qmol(cond.query.value) : rd.get_mol(cond.query.value);
      } catch {
        q = null;
      }
      if (!q || !q.is_valid()) {
        q?.delete();
        for (const m of made) m.delete();
        const loc = [
          'body',
          ...path
            .slice(2)
            .split(/[.[\]]+/)
            .filter(Boolean)
            .map((s) => (/^\d+$/.test(s) ? Number(s) : s)),
          'query',
          'value',
        ];
        throw new DomainError(
          'invalid_smiles',
          `${path}.query.value: could not parse ${cond.query.format.toUpperCase()} ${JSON.stringify(cond.query.value.slice(0, 200))}`,
          {
            issues: [{ loc, msg: `could not parse ${cond.query.format}`, type: 'value_error.smiles' }],
          },
        );
      }
      made.push(q);
      return { path, cond, query: q };
    });
  const s = sel.constraints.structures;
  const all = compile(s.all, '$.constraints.structures.all');
  const any = compile(s.any.conditions, '$.constraints.structures.any.conditions');
  const none = compile(s.none, '$.constraints.structures.none');
  return { all, any, none, free: () => made.forEach((m) => m.delete()) };
}

/** Number of (unique) matches of a query in a molecule, capped at `cap`. */
export function countMatches(mol: RDKitMol, query: RDKitMol, cap: number): number {
  if (cap <= 1) return JSON.parse(mol.get_substruct_match(query)).atoms?.length ? 1 : 0;
  const matches = JSON.parse(mol.get_substruct_matches(query)) as unknown[];
  return Math.min(matches.length, cap);
}

const holds = (mol: RDKitMol, c: CompiledCondition): { ok: boolean; count: number } => {
  const cap = c.cond.count.max === undefined ? c.cond.count.min : c.cond.count.max + 1;
  const count = countMatches(mol, c.query, Math.max(cap, 1));
  return {
    ok: count >= c.cond.count.min && (c.cond.count.max === undefined || count <= c.cond.count.max),
    count,
  };
};

/** Evaluates the all / any (minimum) / none structure conditions on one molecule, with evidence. */
export function structuresPass(
  mol: RDKitMol,
  compiled: ReturnType<typeof compileConditions>,
  minimum: number,
  evidence?: Record<string, unknown>[],
): boolean {
  for (const c of compiled.all) {
    const h = holds(mol, c);
    evidence?.push({ path: c.path, id: c.cond.id, match_count: h.count, passed: h.ok });
    if (!h.ok) return false;
  }
  if (compiled.any.length) {
    let n = 0;
    for (const c of compiled.any) if (holds(mol, c).ok) n++;
    evidence?.push({ path: '$.constraints.structures.any', satisfied: n, minimum, passed: n >= minimum });
    if (n < minimum) return false;
  }
  for (const c of compiled.none) {
    const h = holds(mol, c);
    evidence?.push({ path: c.path, id: c.cond.id, match_count: h.count, passed: !h.ok });
    if (h.ok) return false;
  }
  return true;
}
