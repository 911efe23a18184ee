/**
 * Admission of a run/1 document: the envelope parsed, every item's selection prepared (errors
 * reported at the field the caller wrote), the run's work and its specification hash. An item of a
 * selection_batch whose own references do not parse is admitted as an item that will fail
 * (failure_policy continue); everything else wrong is the document's error (422).
 */
import { DomainError, jsonPath, type FieldIssue } from '../../platform/errors.ts';
import { documentHash } from './hash.ts';
import { prepareSelection } from './prepare.ts';
import type { LibraryRegistry } from './registry.ts';
import { itemSelection, parseRunDocument, RUN_LIMITS, runItemIds, type RunDocument } from './run-document.ts';
import { priceCapabilityGap } from './candidate-properties.ts';
import { ENGINE_METRIC_IDS } from './execute.ts';
import type { NormalizedSelection } from './spec.ts';

export interface RunWork {
  items: number;
  hits_per_item: number;
  total_hits: number;
  exact_evaluations: number;
  /** Items whose references do not parse: admitted, they fail without running a search. */
  failing_items: number;
}

/** Why a run item failed, as GET .../items shows it. */
export interface RunItemError {
  code: string;
  message: string;
}

export interface CheckedRun {
  doc: RunDocument;
  itemIds: string[];
  /** Per item in input order: its normalized selection, or null when its references do not parse. */
  selections: (NormalizedSelection | null)[];
  /** The items that will fail, with their error, in input order. */
  failing: { id: string; error: RunItemError }[];
  specificationHash: string;
  work: RunWork;
}

/** Where a field of item `index`'s selection (a path from its root) is in the run document the caller wrote. */
function itemLoc(doc: RunDocument, index: number, loc: (string | number)[]): (string | number)[] {
  if (doc.kind === 'selection') return ['body', 'selection', ...loc];
  return loc[0] === 'references' ? ['body', 'items', index, ...loc] : ['body', 'selection_template', ...loc];
}

/** Moves issues of a template+item selection (reported from its root) to the field the caller wrote. */
function relocate(err: unknown, doc: RunDocument, index: number): never {
  if (!(err instanceof DomainError) || !err.issues.length) throw err;
  const issues: FieldIssue[] = err.issues.map((i) => ({ ...i, loc: itemLoc(doc, index, i.loc) }));
  throw new DomainError(err.code, issues.map((i) => `${jsonPath(i.loc)}: ${i.msg}`).join('; '), { issues });
}

/**
 * The error of item `index` of a selection_batch run when `err`, thrown while preparing the item's
 * selection, lies wholly in the item's own references (a SMILES or SMARTS that does not parse):
 * code invalid_smiles, the message naming the item and each field with its reason. Undefined for
 * every other error (the template's, the envelope's) and for kind selection, whose single
 * selection is the document itself: those stay the document's 422.
 */
export function itemReferenceError(doc: RunDocument, index: number, err: unknown): RunItemError | undefined {
  if (doc.kind !== 'selection_batch' || !(err instanceof DomainError) || err.code !== 'invalid_smiles')
    return undefined;
  if (!err.issues.length || !err.issues.every((i) => i.loc[0] === 'references')) return undefined;
  const where = err.issues.map((i) => `${jsonPath(itemLoc(doc, index, i.loc))}: ${i.msg}`).join('; ');
  return { code: 'invalid_smiles', message: `item ${JSON.stringify(doc.items![index].id)}: ${where}` };
}

/**
 * Validates a run document and every item's selection; throws validation_error /
 * payload_too_large. Items whose references do not parse are returned in `failing`, not thrown:
 * one bad molecule in a batch fails its item, not the run (even when every item is bad).
 */
export async function checkRunDocument(body: unknown, libraries: LibraryRegistry): Promise<CheckedRun> {
  const doc = parseRunDocument(body);
  const itemIds = runItemIds(doc);
  const selections: (NormalizedSelection | null)[] = [];
  const failing: CheckedRun['failing'] = [];
  for (let i = 0; i < itemIds.length; i++) {
    try {
      selections.push((await prepareSelection(libraries, itemSelection(doc, i).selection, [])).selection);
    } catch (err) {
      const error = itemReferenceError(doc, i, err);
      if (!error) relocate(err, doc, i);
      selections.push(null);
      failing.push({ id: itemIds[i], error });
    }
  }
  const admitted = selections.filter((s) => s !== null);
  const work: RunWork = {
    items: itemIds.length,
    hits_per_item: admitted.reduce((m, s) => Math.max(m, s.portfolio.limit), 0),
    total_hits: admitted.reduce((s, x) => s + x.portfolio.limit, 0),
    exact_evaluations: admitted.reduce((s, x) => s + x.portfolio.limit * x.execution.shortlist_multiplier, 0),
    failing_items: failing.length,
  };
  const specificationHash = documentHash({
    schema_version: doc.schema_version,
    kind: doc.kind,
    failure_policy: doc.failure_policy,
    metadata: doc.metadata,
    // A failing item has no normalized selection: its references as written stand for it.
    items: itemIds.map((id, i) =>
      selections[i] ? { id, selection: selections[i] } : { id, references: doc.items![i].references },
    ),
  });
  return { doc, itemIds, selections, failing, specificationHash, work };
}

/**
 * The first objective of a selection that a run item cannot score, at its field in `written` (the
 * selection as the caller wrote it: normalization sorts the objectives). Run items execute on the
 * scan worker's selection threads, which have no 3D embedding, conformers or shape pool, so only
 * the engine's own metrics are served there; the 3D metric ids (cheese.shape, cheese.electrostatic)
 * are scored by synchronous selections (POST /api/v2/selections) on 3D-ready catalogs.
 */
export function runItemObjectiveIssue(sel: NormalizedSelection, written: unknown): FieldIssue | undefined {
  const gap = sel.objectives.find((o) => !ENGINE_METRIC_IDS.includes(o.metric_id));
  if (!gap) return undefined;
  const objectives = (written as { objectives?: unknown } | null)?.objectives;
  const index = Array.isArray(objectives)
    ? objectives.findIndex((o) => (o as { metric_id?: unknown } | null)?.metric_id === gap.metric_id)
    : -1;
  return {
    loc: ['objectives', Math.max(index, 0), 'metric_id'],
    msg:
      `${gap.metric_id} is not scored by run items (they cannot embed 3D references or read conformers yet); ` +
      `submit it as a synchronous selection (POST /api/v2/selections), or use ${ENGINE_METRIC_IDS.join(', ')} in a run`,
    type: 'value_error.capability_unavailable',
  };
}

/**
 * The first objective of a run that its items cannot score, at the field the caller wrote, or
 * undefined: such a run is refused up front instead of admitted to fail every item.
 */
export function runCapabilityIssue(run: CheckedRun): FieldIssue | undefined {
  for (const [index, sel] of run.selections.entries()) {
    if (!sel) continue;
    const issue = runItemObjectiveIssue(sel, itemSelection(run.doc, index).selection);
    if (issue) return { ...issue, loc: itemLoc(run.doc, index, issue.loc) };
  }
  return undefined;
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

/**
 * Why the run's price bound cannot apply (its library has no prices), or undefined: every item
 * would fail with capability_unavailable, so the run is refused at admission instead.
 */
export async function runPriceGap(run: CheckedRun, libraries: LibraryRegistry): Promise<string | undefined> {
  const sel = run.selections.find((s) => s?.constraints.price);
  const lib = sel && (await libraries.get(sel.database.database_id));
  return lib ? priceCapabilityGap(lib) : undefined;
}
