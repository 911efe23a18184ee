/**
 * run/1 documents: validation of the run envelope and expansion into one selection document per
 * item. kind `selection` has one item (id `selection`); kind `selection_batch` has one item per
 * `items[]` entry, each the `selection_template` with that entry's references.
 */
import { DomainError } from '../../platform/errors.ts';
import { createChecker } from './check.ts';

export const RUN_SCHEMA_VERSION = 'run/1';
export const RUN_KINDS = ['selection', 'selection_batch'] as const;
export const FAILURE_POLICIES = ['continue'] as const;
export const RUN_LIMITS = { maxItems: 1000, maxHitsPerItem: 200, maxTotalHits: 100_000 } as const;
export const SINGLE_ITEM_ID = 'selection';

export interface RunDocument {
  schema_version: typeof RUN_SCHEMA_VERSION;
  kind: (typeof RUN_KINDS)[number];
  selection?: Record<string, unknown>;
  selection_template?: Record<string, unknown>;
  items?: { id: string; references: unknown[] }[];
  failure_policy: 'continue';
  metadata: Record<string, string>;
}

/** Checks the run envelope (not the selections inside, see itemSelections); unknown fields are rejected. */
export function parseRunDocument(doc: unknown): RunDocument {
  const c = createChecker(['body']);
  const d =
    c.object(
      doc,
      [],
      ['schema_version', 'kind', 'selection', 'selection_template', 'items', 'failure_policy', 'metadata'],
    ) ?? {};
  if (d.schema_version !== undefined) c.oneOf(d.schema_version, ['schema_version'], [RUN_SCHEMA_VERSION]);
  const kind = c.oneOf(d.kind, ['kind'], RUN_KINDS);
  const failure =
    d.failure_policy === undefined
      ? 'continue'
      : c.oneOf(d.failure_policy, ['failure_policy'], FAILURE_POLICIES);
  const metadata: Record<string, string> = {};
  if (d.metadata !== undefined && d.metadata !== null) {
    const m = c.object(d.metadata, ['metadata'], Object.keys(d.metadata as object));
    if (m && Object.keys(m).length > 50) c.add(['metadata'], 'at most 50 entries');
    for (const [k, v] of Object.entries(m ?? {})) {
      if (typeof v !== 'string' || v.length > 1000 || k.length > 100)
        c.add(['metadata', k], 'metadata values are strings of at most 1000 characters');
      else metadata[k] = v;
    }
  }
  const out: RunDocument = {
    schema_version: RUN_SCHEMA_VERSION,
    kind: kind ?? 'selection',
    failure_policy: failure ?? 'continue',
    metadata,
  };
  if (kind === 'selection') {
    if (d.selection === undefined)
      c.add(['selection'], 'field required for kind selection', 'value_error.missing');
    for (const k of ['selection_template', 'items'] as const)
      if (d[k] !== undefined) c.add([k], 'only allowed for kind selection_batch', 'value_error.extra');
    out.selection = c.object(d.selection, ['selection'], Object.keys((d.selection as object) ?? {}));
  } else if (kind === 'selection_batch') {
    if (d.selection !== undefined)
      c.add(['selection'], 'only allowed for kind selection', 'value_error.extra');
    out.selection_template = c.object(
      d.selection_template,
      ['selection_template'],
      Object.keys((d.selection_template as object) ?? {}),
    );
    if (!Array.isArray(d.items))
      c.add(
        ['items'],
        'field required for kind selection_batch: an array of {id, references}',
        'value_error.missing',
      );
    else {
      if (d.items.length > RUN_LIMITS.maxItems) {
        throw new DomainError(
          'payload_too_large',
          `a run has at most ${RUN_LIMITS.maxItems} items, got ${d.items.length}`,
          {
            issues: [
              {
                loc: ['body', 'items'],
                msg: `at most ${RUN_LIMITS.maxItems} items`,
                type: 'value_error.too_large',
              },
            ],
          },
        );
      }
      if (!d.items.length) c.add(['items'], 'at least one item');
      const seen = new Set<string>();
      out.items = [];
      d.items.forEach((it, i) => {
        const o = c.object(it, ['items', i], ['id', 'references']);
        const id = o && c.string(o.id, ['items', i, 'id'], 128);
        if (id && seen.has(id)) c.add(['items', i, 'id'], `duplicate item id ${JSON.stringify(id)}`);
        const refs = o && c.array(o.references, ['items', i, 'references'], 100);
        if (id && refs) {
          seen.add(id);
          out.items!.push({ id, references: refs });
        }
      });
    }
  }
  c.fail();
  return out;
}

/** The item ids of a run, in input order. */
export function runItemIds(doc: RunDocument): string[] {
  return doc.kind === 'selection' ? [SINGLE_ITEM_ID] : doc.items!.map((i) => i.id);
}

/** The selection document of one item and the JSON location its errors are reported under. */
export function itemSelection(
  doc: RunDocument,
  index: number,
): { selection: Record<string, unknown>; root: (string | number)[] } {
  if (doc.kind === 'selection') return { selection: doc.selection!, root: ['body', 'selection'] };
  return {
    selection: { ...doc.selection_template!, references: doc.items![index].references },
    root: ['body', 'items', index],
  };
}
