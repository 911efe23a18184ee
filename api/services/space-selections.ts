/**
 * Synchronous v2 selections over synthon spaces. A space's products are never written down, so a
 * selection first materializes its candidates from the space: for a `ranked` strategy the exact
 * top `limit × shortlist_multiplier` products of the space for each objective's reference (the
 * space similarity search), for a `sample` strategy a seeded `route_product_tuple` sample of that
 * many products. The candidates become an in-memory library (RDKit descriptors, scaffolds,
 * fingerprints) and the selection engine runs on it unchanged: objectives scored exactly,
 * constraints, relationships and portfolio limits applied. Property and structure constraints
 * therefore filter the shortlist (on a catalog they also restrict the k-NN): a warning says so.
 * Hits carry `reaction_id` and, with `include: ["synthons"]`, `synthons`. Documents naming a
 * catalog go to the catalog service unchanged.
 */
import { randomUUID } from 'node:crypto';
import { DomainError } from '../../platform/errors.ts';
import { getRDKit, parseMolecule } from '../../engine/chem/index.ts';
import {
  checkCapabilities,
  constraintExecution,
  createMemoryLibrary,
  executeSelectionIn,
  prepareSelection,
  selectionDatabaseId,
  staticRegistry,
  type Library,
  type NormalizedSelection,
  type SelectionPool,
} from '../../engine/selection/index.ts';
import type { SpacePool } from '../../engine/synthons/space-pool.ts';
import { MAX_SYNC_LIMIT, type SelectionsService } from './selections.ts';
import type { SpaceEntry } from './space-search.ts';

/** Largest shortlist materialized from a space synchronously (candidates are parsed with RDKit). */
export const MAX_SPACE_SELECTION_SHORTLIST = 2000;
const SPACE_TIMEOUT_MS = 20_000;

type Synthons = Array<{ slot: number; synthonId: string; smiles: string }>;

/** The library facts normalization needs (id, release, kind); a space has no rows to read. */
function spaceFacts(s: SpaceEntry): Library {
  const none = () => {
    throw new Error('a synthon space has no rows; selections materialize candidates first');
  };
  return {
    info: {
      database_id: s.manifest.id,
      name: s.manifest.name,
      vendor: s.vendor,
      website: s.website,
      contact: s.website,
      release: s.manifest.createdAt.slice(0, 10),
      kind: 'synthon',
      product_count: s.manifest.counts.products,
      predicted_property_ids: [],
    },
    size: s.manifest.counts.products,
    productId: none,
    smiles: none,
    scaffold: none,
    fingerprint: none,
    price: none,
    column: none,
    knn: none,
  };
}

export function withSpaceSelections(
  base: SelectionsService,
  spaces: SpaceEntry[],
  pool: SpacePool,
  selectionPool?: SelectionPool,
): SelectionsService {
  if (!spaces.length) return base;
  const byId = new Map(spaces.map((s) => [s.manifest.id, s]));
  const spaceOf = (body: unknown) => {
    try {
      return byId.get(selectionDatabaseId(body));
    } catch {
      return undefined; // malformed documents get the catalog service's detailed errors
    }
  };
  const prepare = (s: SpaceEntry, body: unknown) => prepareSelection(staticRegistry([spaceFacts(s)]), body);
  const shortlistOf = (sel: NormalizedSelection) => sel.portfolio.limit * sel.execution.shortlist_multiplier;

  /** The candidates of a selection from the space, with the synthons of each product. */
  async function materialize(s: SpaceEntry, sel: NormalizedSelection) {
    const shortlist = shortlistOf(sel);
    const products = new Map<string, { smiles: string; reactionId: string; synthons: Synthons }>();
    if (sel.strategy.type === 'sample') {
      const r = await pool.sample(s.manifest.id, shortlist, sel.execution.seed);
      for (const p of r.products) products.set(p.productId, p);
    } else {
      const rd = await getRDKit();
      for (const o of sel.objectives) {
        const ref = sel.references.find((r) => r.id === o.reference_id)!;
        const q = parseMolecule(rd, ref.structure.value);
        if ('error' in q) continue; // prepareSelection already refused unparsable references
        const r = await pool.similarity(s.manifest.id, q.fp, shortlist, SPACE_TIMEOUT_MS);
        for (const h of r.hits) products.set(h.productId, h);
      }
    }
    return products;
  }

  return {
    ...base,
    async validate(body, requestId) {
      const s = spaceOf(body);
      if (!s) return base.validate(body, requestId);
      const { selection, hash } = await prepare(s, body);
      const warnings: Record<string, string>[] = [];
      try {
        checkCapabilities(selection);
      } catch (err) {
        warnings.push({ code: 'capability_unavailable', message: (err as Error).message });
      }
      return {
        valid: true,
        selection_hash: hash,
        normalized_selection: selection,
        constraint_execution: constraintExecution(selection),
        warnings,
        request_id: requestId,
      };
    },

    async estimate(body, requestId) {
      const s = spaceOf(body);
      if (!s) return base.estimate(body, requestId);
      const { selection, hash } = await prepare(s, body);
      const shortlist = shortlistOf(selection);
      return {
        request_id: requestId,
        normalized_selection: selection,
        selection_hash: hash,
        execution_tier: shortlist <= MAX_SPACE_SELECTION_SHORTLIST ? 'synchronous' : 'durable',
        admissible: selection.portfolio.limit <= MAX_SYNC_LIMIT,
        work: {
          catalog_rows: s.manifest.counts.products,
          shortlist,
          exact_evaluations: shortlist * Math.max(1, selection.objectives.length),
          references: selection.references.length,
        },
      };
    },

    async execute(body, requestId) {
      const s = spaceOf(body);
      if (!s) return base.execute(body, requestId);
      const t0 = performance.now();
      const { selection, hash } = await prepare(s, body);
      if (selection.portfolio.limit > MAX_SYNC_LIMIT)
        throw new DomainError(
          'validation_error',
          `$.portfolio.limit: at most ${MAX_SYNC_LIMIT} molecules per selection`,
          {
            issues: [
              {
                loc: ['body', 'portfolio', 'limit'],
                msg: `at most ${MAX_SYNC_LIMIT}`,
                type: 'value_error.range',
              },
            ],
          },
        );
      if (shortlistOf(selection) > MAX_SPACE_SELECTION_SHORTLIST)
        throw new DomainError(
          'payload_too_large',
          `shortlist ${shortlistOf(selection)} exceeds ${MAX_SPACE_SELECTION_SHORTLIST} for a selection over a synthon space; lower portfolio.limit or execution.shortlist_multiplier`,
        );
      const products = await materialize(s, selection);
      const facts = spaceFacts(s).info;
      const lib = await createMemoryLibrary(
        { ...facts, predicted_property_ids: [] },
        [...products].map(([id, p]) => ({ id, smiles: p.smiles })),
      );
      const t1 = performance.now();
      const out = await executeSelectionIn(selectionPool, lib, selection);
      const withSynthons = selection.include.includes('synthons');
      const results = out.results.map((h) => {
        const p = products.get(h.product_id);
        return {
          ...h,
          reaction_id: p?.reactionId ?? null,
          ...(withSynthons && p
            ? {
                synthons: p.synthons.map((x) => ({
                  slot: x.slot,
                  synthon_id: x.synthonId,
                  smiles: x.smiles,
                })),
              }
            : {}),
        };
      });
      const constrained =
        selection.constraints.properties.length + selection.constraints.presets.length > 0 ||
        selection.constraints.structures.all.length + selection.constraints.structures.none.length > 0 ||
        (selection.constraints.structures.any?.conditions.length ?? 0) > 0;
      const warnings = [...out.warnings];
      if (constrained)
        warnings.push({
          code: 'space_shortlist_postfilter',
          message: `constraints filter the ${products.size} candidates materialized from synthon space ${s.manifest.id}; raise execution.shortlist_multiplier for more`,
        });
      return {
        object: 'selection' as const,
        id: `sel_${randomUUID().replace(/-/g, '')}`,
        request_id: requestId,
        status: 'completed',
        selection_hash: hash,
        normalized_selection: selection,
        database_release: facts.release,
        results: results as typeof out.results,
        counts: { ...out.counts, catalog_rows: s.manifest.counts.products, candidates: products.size },
        execution_plan: {
          ...out.execution_plan,
          candidate_generation:
            selection.strategy.type === 'sample'
              ? 'route_product_tuple_sample'
              : 'space_exact_topk_ecfp4_tanimoto',
        },
        timing_ms: { ...out.timing_ms, materialize: Math.round((t1 - t0) * 1000) / 1000 },
        warnings,
      };
    },
  };
}
