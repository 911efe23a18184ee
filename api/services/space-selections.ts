/**
 * Synchronous v2 selections over synthon spaces (engine/synthons/space-selection.ts): documents
 * whose `database.database_id` names a space are prepared against the space's facts and executed
 * by materializing candidates from it; documents naming a catalog go to the catalog service
 * unchanged.
 */
import { randomUUID } from 'node:crypto';
import { DomainError } from '../../platform/errors.ts';
import {
  checkCapabilities,
  constraintExecution,
  prepareSelection,
  priceCapabilityGap,
  selectionDatabaseId,
  staticRegistry,
  type Library,
  type NormalizedSelection,
  type SelectionPool,
} from '../../engine/selection/index.ts';
import type { SpacePool } from '../../engine/synthons/space-pool.ts';
import {
  executeSpaceSelection,
  MAX_SPACE_SELECTION_SHORTLIST,
  spaceFactsLibrary,
} from '../../engine/synthons/space-selection.ts';
import { MAX_SYNC_LIMIT, type SelectionsService } from './selections.ts';
import type { SpaceEntry } from './space-search.ts';

/** The facts library of a served space (what selections and runs normalize against). */
export function spaceLibrary(s: SpaceEntry): Library {
  return spaceFactsLibrary({
    database_id: s.manifest.id,
    name: s.manifest.name,
    vendor: s.vendor,
    website: s.website,
    contact: s.website,
    release: s.manifest.createdAt.slice(0, 10),
    product_count: s.manifest.counts.products,
  });
}

export function withSpaceSelections(
  base: SelectionsService,
  spaces: SpaceEntry[],
  pool: SpacePool,
  selectionPool?: SelectionPool,
): SelectionsService {
  if (!spaces.length) return base;
  const byId = new Map(spaces.map((s) => [s.manifest.id, spaceLibrary(s)]));
  const spaceOf = (body: unknown) => {
    try {
      return byId.get(selectionDatabaseId(body));
    } catch {
      return undefined; // malformed documents get the catalog service's detailed errors
    }
  };
  const prepare = async (lib: Library, body: unknown) => {
    const prepared = await prepareSelection(staticRegistry([lib]), body);
    // A space's products carry no price (its catalog entry says pricing.available false): said
    // here, before any candidate is built, rather than by the execution over those candidates.
    const gap = prepared.selection.constraints.price ? priceCapabilityGap(lib) : undefined;
    if (gap) throw new DomainError('capability_unavailable', gap);
    return prepared;
  };
  const shortlistOf = (sel: NormalizedSelection) => sel.portfolio.limit * sel.execution.shortlist_multiplier;

  return {
    ...base,
    async validate(body, requestId) {
      const lib = spaceOf(body);
      if (!lib) return base.validate(body, requestId);
      const { selection, hash } = await prepare(lib, body);
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
      const lib = spaceOf(body);
      if (!lib) return base.estimate(body, requestId);
      const { selection, hash } = await prepare(lib, body);
      const shortlist = shortlistOf(selection);
      return {
        request_id: requestId,
        normalized_selection: selection,
        selection_hash: hash,
        execution_tier: shortlist <= MAX_SPACE_SELECTION_SHORTLIST ? 'synchronous' : 'durable',
        admissible: selection.portfolio.limit <= MAX_SYNC_LIMIT,
        work: {
          catalog_rows: lib.size,
          shortlist,
          exact_evaluations: shortlist * Math.max(1, selection.objectives.length),
          references: selection.references.length,
        },
      };
    },

    async execute(body, requestId) {
      const lib = spaceOf(body);
      if (!lib) return base.execute(body, requestId);
      const { selection, hash } = await prepare(lib, body);
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
      const out = await executeSpaceSelection(pool, lib, selection, selectionPool);
      return {
        object: 'selection' as const,
        id: `sel_${randomUUID().replace(/-/g, '')}`,
        request_id: requestId,
        status: 'completed',
        selection_hash: hash,
        normalized_selection: selection,
        database_release: lib.info.release,
        results: out.results,
        counts: out.counts,
        execution_plan: out.execution_plan,
        timing_ms: out.timing_ms,
        warnings: out.warnings,
      };
    },
  };
}
