/**
 * v2 selections (molecule-selection/1) as the routes see them: validate (normalized document, hash,
 * how each constraint executes), estimate (work and tier), and synchronous execution on the
 * selection pool's threads. Larger selections belong to runs (413 pointing there).
 */
import { randomUUID } from 'node:crypto';
import { DomainError } from '../../platform/errors.ts';
import {
  checkCapabilities,
  constraintExecution,
  executeSelectionIn,
  prepareSelection,
  type LibraryRegistry,
  type NormalizedSelection,
  type SelectionPool,
} from '../../engine/selection/index.ts';
import { requestLimits } from './request-limits.ts';

/** Most hits a synchronous v2 answer holds (search, sample, selections). */
export const MAX_SYNC_LIMIT = 200;
/**
 * Largest shortlist (limit × shortlist_multiplier) answered synchronously; larger ones answer 413
 * pointing to runs. With a selection pool the selection runs on a worker thread (WebAssembly
 * masked k-NN, RDKit post-filters there), so the bound is the request's latency, not the API's
 * event loop: 10,000 candidates cost well under a second of k-NN on a 110k catalog plus at most
 * ~0.5 ms of RDKit per candidate when structure filters reject most of them.
 */
export const MAX_SYNC_SHORTLIST = 10_000;
/** The bound without a pool, where the selection runs on the API's own thread (tests, embedded use). */
export const MAX_IN_THREAD_SHORTLIST = 4000;

export interface SelectionsServiceDeps {
  libraries: LibraryRegistry;
  /** Threads that execute sync selections off the event loop (absent: in this thread, smaller cap). */
  selectionPool?: SelectionPool;
}

export function createSelectionsService(deps: SelectionsServiceDeps) {
  const shortlistCap = deps.selectionPool ? MAX_SYNC_SHORTLIST : MAX_IN_THREAD_SHORTLIST;
  const shortlistOf = (sel: NormalizedSelection) => sel.portfolio.limit * sel.execution.shortlist_multiplier;
  const tierOf = (sel: NormalizedSelection) =>
    sel.portfolio.limit <= MAX_SYNC_LIMIT && shortlistOf(sel) <= shortlistCap ? 'synchronous' : 'durable';

  return {
    /** The normalized selection, its hash and how each constraint executes; capability gaps are warnings. */
    async validate(body: unknown, requestId: string) {
      const { selection, hash } = await prepareSelection(deps.libraries, body);
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

    /** The work of a selection and whether it runs synchronously or as a run. */
    async estimate(body: unknown, requestId: string) {
      const { library, selection, hash } = await prepareSelection(deps.libraries, body);
      const shortlist = shortlistOf(selection);
      return {
        request_id: requestId,
        normalized_selection: selection,
        selection_hash: hash,
        execution_tier: tierOf(selection),
        admissible: selection.portfolio.limit <= MAX_SYNC_LIMIT,
        work: {
          catalog_rows: library.size,
          shortlist,
          exact_evaluations: Math.min(shortlist * Math.max(1, selection.objectives.length), library.size),
          references: selection.references.length,
        },
      };
    },

    /** Executes a selection synchronously (limit ≤ 200, shortlist within the cap; else 422 / 413). */
    async execute(body: unknown, requestId: string) {
      const { library, selection, hash } = await prepareSelection(deps.libraries, body);
      if (selection.portfolio.limit > MAX_SYNC_LIMIT) {
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
      }
      if (tierOf(selection) !== 'synchronous') {
        throw new DomainError(
          'payload_too_large',
          `shortlist ${shortlistOf(selection)} exceeds ${shortlistCap} for a synchronous selection; submit it as a run (POST /api/v2/runs)`,
        );
      }
      const out = await executeSelectionIn(deps.selectionPool, library, selection, {
        lane: 'interactive',
        ...requestLimits(),
      });
      return {
        object: 'selection' as const,
        id: `sel_${randomUUID().replace(/-/g, '')}`,
        request_id: requestId,
        status: 'completed',
        selection_hash: hash,
        normalized_selection: selection,
        database_release: library.info.release,
        results: out.results,
        counts: out.counts,
        execution_plan: out.execution_plan,
        timing_ms: out.timing_ms,
        warnings: out.warnings,
      };
    },
  };
}

export type SelectionsService = ReturnType<typeof createSelectionsService>;
