import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { randomUUID } from 'node:crypto';
import { DomainError } from '../../../platform/errors.ts';
import {
  constraintExecution,
  checkCapabilities,
  documentHash,
  executeSelectionIn,
  libraryFacts,
  normalizeSelection,
  selectionDatabaseId,
  type Library,
  type NormalizedSelection,
} from '../../../engine/selection/index.ts';
import { MAX_SYNC_LIMIT, Open, errorResponses, libraryOr422, type V2Deps } from './common.ts';

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

const SelectionDoc = Type.Unknown({
  description:
    'A molecule-selection/1 document; database.database_id and strategy are required; unknown fields are rejected',
});

async function normalized(
  deps: V2Deps,
  body: unknown,
): Promise<{ lib: Library; sel: NormalizedSelection; hash: string }> {
  const id = selectionDatabaseId(body);
  const lib = await libraryOr422(deps.libraries, id, ['body', 'database', 'database_id']);
  const sel = normalizeSelection(body, libraryFacts(lib));
  return { lib, sel, hash: documentHash(sel) };
}

const shortlistCap = (deps: V2Deps) => (deps.selectionPool ? MAX_SYNC_SHORTLIST : MAX_IN_THREAD_SHORTLIST);
const tierOf = (deps: V2Deps, sel: NormalizedSelection) =>
  sel.portfolio.limit <= MAX_SYNC_LIMIT &&
  sel.portfolio.limit * sel.execution.shortlist_multiplier <= shortlistCap(deps)
    ? 'synchronous'
    : 'durable';

/** POST /api/v2/selections:validate, :estimate and /api/v2/selections. */
export function registerV2SelectionRoutes(app: FastifyInstance, deps: V2Deps): void {
  // '::' is Fastify's escape for a literal ':' in a path.
  app.post(
    '/api/v2/selections::validate',
    {
      schema: {
        tags: ['v2'],
        summary: 'Validate and normalize a selection; answers its hash and how each constraint executes',
        body: SelectionDoc,
        response: {
          200: Open({
            valid: Type.Boolean(),
            selection_hash: Type.String(),
            normalized_selection: Type.Any(),
            constraint_execution: Type.Array(Type.Any()),
            warnings: Type.Array(Type.Any()),
          }),
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const { sel, hash } = await normalized(deps, request.body);
      const warnings: Record<string, string>[] = [];
      try {
        checkCapabilities(sel);
      } catch (err) {
        warnings.push({ code: 'capability_unavailable', message: (err as Error).message });
      }
      return {
        valid: true,
        selection_hash: hash,
        normalized_selection: sel,
        constraint_execution: constraintExecution(sel),
        warnings,
        request_id: request.id,
      };
    },
  );

  app.post(
    '/api/v2/selections::estimate',
    {
      schema: {
        tags: ['v2'],
        summary: 'Estimate the work of a selection and whether it runs synchronously or as a run',
        body: SelectionDoc,
        response: {
          200: Open({ selection_hash: Type.String(), execution_tier: Type.String(), work: Type.Any() }),
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const { lib, sel, hash } = await normalized(deps, request.body);
      const shortlist = sel.portfolio.limit * sel.execution.shortlist_multiplier;
      return {
        request_id: request.id,
        normalized_selection: sel,
        selection_hash: hash,
        execution_tier: tierOf(deps, sel),
        admissible: sel.portfolio.limit <= MAX_SYNC_LIMIT,
        work: {
          catalog_rows: lib.size,
          shortlist,
          exact_evaluations: Math.min(shortlist * Math.max(1, sel.objectives.length), lib.size),
          references: sel.references.length,
        },
      };
    },
  );

  app.post(
    '/api/v2/selections',
    {
      schema: {
        tags: ['v2'],
        summary: 'Execute a selection synchronously (limit ≤ 200)',
        body: SelectionDoc,
        response: {
          200: Open({
            object: Type.Literal('selection'),
            id: Type.String(),
            status: Type.String(),
            selection_hash: Type.String(),
            results: Type.Array(Type.Any()),
          }),
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const { lib, sel, hash } = await normalized(deps, request.body);
      if (sel.portfolio.limit > MAX_SYNC_LIMIT) {
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
      if (tierOf(deps, sel) !== 'synchronous') {
        throw new DomainError(
          'payload_too_large',
          `shortlist ${sel.portfolio.limit * sel.execution.shortlist_multiplier} exceeds ${shortlistCap(deps)} for a synchronous selection; submit it as a run (POST /api/v2/runs)`,
        );
      }
      const out = await executeSelectionIn(deps.selectionPool, lib, sel);
      return {
        object: 'selection',
        id: `sel_${randomUUID().replace(/-/g, '')}`,
        request_id: request.id,
        status: 'completed',
        selection_hash: hash,
        normalized_selection: sel,
        database_release: lib.info.release,
        results: out.results,
        counts: out.counts,
        execution_plan: out.execution_plan,
        timing_ms: out.timing_ms,
        warnings: out.warnings,
      };
    },
  );
}
