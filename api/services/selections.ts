/**
 * v2 selections (molecule-selection/1) as the routes see them: validate (normalized document, hash,
 * how each constraint executes), estimate (work and tier), and synchronous execution on the
 * selection pool's threads. Larger selections belong to runs (413 pointing there).
 */
import { randomUUID } from 'node:crypto';
import { DomainError, jsonPath, validationError } from '../../platform/errors.ts';
import { getRDKit, parseMolecule } from '../../engine/chem/index.ts';
import {
  checkCapabilities,
  constraintExecution,
  ENGINE_METRIC_IDS,
  executeSelectionIn,
  METRIC_IDS,
  needsExternalScores,
  prepareSelection,
  priceCapabilityGap,
  runItemObjectiveIssue,
  sampleRows,
  type ExternalObjectiveScores,
  type Library,
  type LibraryRegistry,
  type NormalizedSelection,
  type SelectionPool,
} from '../../engine/selection/index.ts';
import type { ShapeObjectives } from './shape-objectives.ts';
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
/**
 * Largest number of exact 3D alignments (candidates × 3D references) a synchronous selection may
 * ask for: each costs ~1 ms per conformer pair on the shape pool, so 2,000 is a few seconds.
 */
export const MAX_SYNC_3D_ALIGNMENTS = 2000;

export interface SelectionsServiceDeps {
  libraries: LibraryRegistry;
  /** Threads that execute sync selections off the event loop (absent: in this thread, smaller cap). */
  selectionPool?: SelectionPool;
  /** 3D objective scoring (absent: cheese.* metric ids are capability_unavailable). */
  shape?: ShapeObjectives;
}

export function createSelectionsService(deps: SelectionsServiceDeps) {
  const shortlistCap = deps.selectionPool ? MAX_SYNC_SHORTLIST : MAX_IN_THREAD_SHORTLIST;
  const shortlistOf = (sel: NormalizedSelection) => sel.portfolio.limit * sel.execution.shortlist_multiplier;
  const tierOf = (sel: NormalizedSelection) =>
    sel.portfolio.limit <= MAX_SYNC_LIMIT && shortlistOf(sel) <= shortlistCap ? 'synchronous' : 'durable';

  /** Metric ids this service can score for a selection: 3D ones with a 3D scorer (ranked or sample). */
  const capable = deps.shape ? METRIC_IDS : ENGINE_METRIC_IDS;

  /** Candidates and exact scores of the 3D objectives (shape-objectives.ts). */
  async function threeD(
    lib: Library,
    sel: NormalizedSelection,
  ): Promise<ExternalObjectiveScores | undefined> {
    checkCapabilities(sel, capable);
    const shortlist = shortlistOf(sel);
    const rd = await getRDKit();
    const objectives = [];
    // A sample scores its seeded draw (the engine's own, sampleRows): nothing else is proposed.
    const sample = sel.strategy.type === 'sample';
    const extra = new Set<number>(sample ? sampleRows(lib, sel) : []);
    for (const [index, o] of sel.objectives.entries()) {
      const ri = sel.references.findIndex((r) => r.id === o.reference_id);
      const ref = sel.references[ri];
      const loc = ['body', 'references', ri, 'structure', 'value'];
      if (ENGINE_METRIC_IDS.includes(o.metric_id)) {
        if (sample) continue;
        // The rows an ECFP4 objective proposes need 3D scores too (unmasked: the engine masks).
        const p = parseMolecule(rd, ref.structure.value);
        if (!('error' in p)) for (const r of (await lib.knn(p.fp, shortlist)).rows) extra.add(r);
        continue;
      }
      if (ref.structure.format !== 'smiles')
        throw validationError(
          loc,
          `${o.metric_id} needs a SMILES reference (3D embedding), got ${ref.structure.format}`,
        );
      objectives.push({
        index,
        smiles: ref.structure.value,
        metric: o.metric_id === 'cheese.shape' ? ('shape' as const) : ('esp' as const),
        loc,
      });
    }
    const refs = new Set(objectives.map((o) => o.smiles)).size;
    const proposed = sample ? 0 : shortlist;
    const alignments = (proposed * refs + extra.size) * refs;
    if (alignments > MAX_SYNC_3D_ALIGNMENTS)
      throw new DomainError(
        'payload_too_large',
        `${alignments} exact 3D alignments (candidates × 3D references) exceed ${MAX_SYNC_3D_ALIGNMENTS} for a synchronous selection; lower portfolio.limit or execution.shortlist_multiplier`,
      );
    return deps.shape!({
      dbName: lib.info.database_id,
      objectives,
      shortlist: proposed,
      extraRows: [...extra],
    });
  }

  return {
    /** The normalized selection, its hash and how each constraint executes; capability gaps are warnings. */
    async validate(body: unknown, requestId: string) {
      const { library, selection, hash } = await prepareSelection(deps.libraries, body);
      const warnings: Record<string, string>[] = [];
      // Said at validation (the SDK's --explain) rather than only when the selection runs.
      const priceGap = selection.constraints.price ? priceCapabilityGap(library) : undefined;
      if (priceGap) warnings.push({ code: 'capability_unavailable', message: priceGap });
      try {
        checkCapabilities(selection, capable);
        // Served here but not by run items: said now, since a run of this document is refused.
        const runGap = runItemObjectiveIssue(selection, body);
        if (runGap)
          warnings.push({
            code: 'capability_unavailable',
            message: `${jsonPath(runGap.loc)}: ${runGap.msg} (a run of this selection is refused with 422)`,
          });
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
      const external =
        deps.shape && needsExternalScores(selection) ? await threeD(library, selection) : undefined;
      const out = await executeSelectionIn(deps.selectionPool, library, selection, external, {
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
