/**
 * Admission of a run/1 document: the envelope parsed, every item's selection prepared (errors
 * reported at the field the caller wrote), the run's work and its specification hash.
 */
import { DomainError, jsonPath, type FieldIssue } from '../../platform/errors.ts';
import { documentHash } from './hash.ts';
import { prepareSelection } from './prepare.ts';
import type { LibraryRegistry } from './registry.ts';
import { itemSelection, parseRunDocument, RUN_LIMITS, runItemIds, type RunDocument } from './run-document.ts';
import type { NormalizedSelection } from './spec.ts';

export interface RunWork {
  items: number;
  hits_per_item: number;
  total_hits: number;
  exact_evaluations: number;
}

export interface CheckedRun {
  doc: RunDocument;
  itemIds: string[];
  selections: NormalizedSelection[];
  specificationHash: string;
  work: RunWork;
}

/** Moves issues of a template+item selection (reported from its root) to the field the caller wrote. */
function relocate(err: unknown, doc: RunDocument, index: number): never {
  if (!(err instanceof DomainError) || !err.issues.length) throw err;
  const issues: FieldIssue[] = err.issues.map((i) => ({
    ...i,
    loc:
      doc.kind === 'selection'
        ? ['body', 'selection', ...i.loc]
        : i.loc[0] === 'references'
          ? ['body', 'items', index, ...i.loc]
          : ['body', 'selection_template', ...i.loc],
  }));
  throw new DomainError(err.code, issues.map((i) => `${jsonPath(i.loc)}: ${i.msg}`).join('; '), { issues });
}

/** Validates a run document and every item's selection; throws validation_error / payload_too_large. */
export async function checkRunDocument(body: unknown, libraries: LibraryRegistry): Promise<CheckedRun> {
  const doc = parseRunDocument(body);
  const itemIds = runItemIds(doc);
  const selections: NormalizedSelection[] = [];
  for (let i = 0; i < itemIds.length; i++) {
    try {
      selections.push((await prepareSelection(libraries, itemSelection(doc, i).selection, [])).selection);
    } catch (err) {
      relocate(err, doc, i);
    }
  }
  const work: RunWork = {
    items: itemIds.length,
    hits_per_item: Math.max(...selections.map((s) => s.portfolio.limit)),
    total_hits: selections.reduce((s, x) => s + x.portfolio.limit, 0),
    exact_evaluations: selections.reduce(
      (s, x) => s + x.portfolio.limit * x.execution.shortlist_multiplier,
      0,
    ),
  };
  const specificationHash = documentHash({
    schema_version: doc.schema_version,
    kind: doc.kind,
    failure_policy: doc.failure_policy,
    metadata: doc.metadata,
    items: itemIds.map((id, i) => ({ id, selection: selections[i] })),
  });
  return { doc, itemIds, selections, specificationHash, work };
}

/** Why a checked run is not admissible (limits), or undefined. */
export function runLimitViolation(run: CheckedRun): string | undefined {
  if (run.work.items > RUN_LIMITS.maxItems)
    return `a run has at most ${RUN_LIMITS.maxItems} items, got ${run.work.items}`;
  if (run.work.hits_per_item > RUN_LIMITS.maxHitsPerItem)
    return `at most ${RUN_LIMITS.maxHitsPerItem} hits per item (portfolio.limit), got ${run.work.hits_per_item}`;
  if (run.work.total_hits > RUN_LIMITS.maxTotalHits)
    return `items × hits must be at most ${RUN_LIMITS.maxTotalHits}, got ${run.work.total_hits}`;
  return undefined;
}
