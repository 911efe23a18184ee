/**
 * Selections over a synthon space, shared by synchronous v2 selections and run items. A space's
 * products are never written down, so a selection first materializes its candidates from the
 * space: for a `ranked` strategy the exact top `limit × shortlist_multiplier` products for each
 * objective's reference (the space similarity search), for a `sample` strategy a seeded
 * `route_product_tuple` sample of that many products. The candidates become an in-memory library
 * (RDKit descriptors, scaffolds, fingerprints) and the selection engine runs on it unchanged, so
 * property and structure constraints filter the shortlist (on a catalog they also restrict the
 * k-NN; a warning says so). Hits carry `reaction_id` and, with `include: ["synthons"]`, synthons.
 */
import { getRDKit, parseMolecule } from '../chem/index.ts';
import { createMemoryLibrary, type Library, type LibraryInfo } from '../selection/library.ts';
import type { LibraryRegistry } from '../selection/registry.ts';
import { executeSelectionIn, type SelectionPool } from '../selection/selection-pool.ts';
import type { SelectionOutcome } from '../selection/execute.ts';
import type { NormalizedSelection } from '../selection/spec.ts';
import type { SpacePool } from './space-pool.ts';

/** Largest shortlist a selection materializes from a space (candidates are parsed with RDKit). */
export const MAX_SPACE_SELECTION_SHORTLIST = 2000;
const SPACE_TIMEOUT_MS = 20_000;

type Synthons = Array<{ slot: number; synthonId: string; smiles: string }>;

/** The library facts normalization needs (id, release, kind 'synthon'); a space has no rows to read. */
export function spaceFactsLibrary(info: Omit<LibraryInfo, 'kind' | 'predicted_property_ids'>): Library {
  const none = () => {
    throw new Error('a synthon space has no rows; selections materialize candidates first');
  };
  return {
    info: { ...info, kind: 'synthon', predicted_property_ids: [] },
    size: info.product_count,
    productId: none,
    smiles: none,
    scaffold: none,
    fingerprint: none,
    price: none,
    column: none,
    knn: none,
  };
}

/** A registry serving `spaces` (facts libraries) beside the libraries of `base`. */
export function withSpaceLibraries(base: LibraryRegistry, spaces: Library[]): LibraryRegistry {
  const byId = new Map(spaces.map((s) => [s.info.database_id, s]));
  return {
    get: async (id) => byId.get(id) ?? base.get(id),
    list: async () =>
      [...(await base.list()), ...spaces].sort((a, b) =>
        a.info.database_id.localeCompare(b.info.database_id),
      ),
  };
}

/** Executes a prepared selection over the space `facts` names (shortlist within the bound). */
export async function executeSpaceSelection(
  pool: SpacePool,
  facts: Library,
  sel: NormalizedSelection,
  selectionPool?: SelectionPool,
): Promise<SelectionOutcome> {
  const t0 = performance.now();
  const id = facts.info.database_id;
  const shortlist = sel.portfolio.limit * sel.execution.shortlist_multiplier;
  const products = new Map<string, { smiles: string; reactionId: string; synthons: Synthons }>();
  if (sel.strategy.type === 'sample') {
    const r = await pool.sample(id, shortlist, sel.execution.seed);
    for (const p of r.products) products.set(p.productId, p);
  } else {
    const rd = await getRDKit();
    for (const o of sel.objectives) {
      const ref = sel.references.find((r) => r.id === o.reference_id)!;
      const q = parseMolecule(rd, ref.structure.value);
      if ('error' in q) continue; // prepareSelection already refused unparsable references
      const r = await pool.similarity(id, q.fp, shortlist, SPACE_TIMEOUT_MS);
      for (const h of r.hits) products.set(h.productId, h);
    }
  }
  const lib = await createMemoryLibrary(
    { ...facts.info, predicted_property_ids: [] },
    [...products].map(([pid, p]) => ({ id: pid, smiles: p.smiles })),
  );
  const t1 = performance.now();
  const out = await executeSelectionIn(selectionPool, lib, sel);
  const withSynthons = sel.include.includes('synthons');
  const results = out.results.map((h) => {
    const p = products.get(h.product_id);
    return {
      ...h,
      reaction_id: p?.reactionId ?? null,
      ...(withSynthons && p
        ? { synthons: p.synthons.map((x) => ({ slot: x.slot, synthon_id: x.synthonId, smiles: x.smiles })) }
        : {}),
    };
  });
  const c = sel.constraints;
  const constrained =
    c.properties.length + c.presets.length + c.structures.all.length + c.structures.none.length > 0 ||
    (c.structures.any?.conditions.length ?? 0) > 0;
  const warnings = [...out.warnings];
  if (constrained)
    warnings.push({
      code: 'space_shortlist_postfilter',
      message: `constraints filter the ${products.size} candidates materialized from synthon space ${id}; raise execution.shortlist_multiplier for more`,
    });
  return {
    // reaction_id is a string on spaces (SelectionHit types the catalog's null).
    results: results as SelectionOutcome['results'],
    counts: { ...out.counts, catalog_rows: facts.size, candidates: products.size },
    execution_plan: {
      ...out.execution_plan,
      candidate_generation:
        sel.strategy.type === 'sample' ? 'route_product_tuple_sample' : 'space_exact_topk_ecfp4_tanimoto',
    },
    timing_ms: { ...out.timing_ms, materialize: Math.round((t1 - t0) * 1000) / 1000 },
    warnings,
  };
}
