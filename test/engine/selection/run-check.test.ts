import { beforeAll, describe, expect, it } from 'vitest';
import { DomainError } from '../../../platform/errors.ts';
import { checkRunDocument, staticRegistry, type LibraryRegistry } from '../../../engine/selection/index.ts';
import { drugsLibrary } from '../../../testkit/drugs-library.ts';

let libraries: LibraryRegistry;
beforeAll(async () => {
  libraries = staticRegistry([await drugsLibrary()]);
}, 120_000);

const ASPIRIN = 'CC(=O)Oc1ccccc1C(=O)O';
const template = (extra: Record<string, unknown> = {}) => ({
  database: { database_id: 'drugs' },
  strategy: { type: 'ranked' },
  objectives: [
    { type: 'similarity', direction: 'maximize', metric_id: 'rdkit.ecfp4_tanimoto', reference_id: 'q' },
  ],
  portfolio: { limit: 5 },
  ...extra,
});
const batch = (smiles: Record<string, string>, extra: Record<string, unknown> = {}) => ({
  schema_version: 'run/1',
  kind: 'selection_batch',
  selection_template: template(extra),
  items: Object.entries(smiles).map(([id, value]) => ({
    id,
    references: [{ id: 'q', structure: { format: 'smiles', value } }],
  })),
  failure_policy: 'continue',
});

/** The DomainError a promise rejects with (fails the test when it resolves). */
async function refusal(p: Promise<unknown>): Promise<DomainError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DomainError);
  return err as DomainError;
}

describe('checkRunDocument: items whose references do not parse', () => {
  it('admits a batch with one bad item, which will fail with invalid_smiles naming the item, field and reason', async () => {
    const run = await checkRunDocument(batch({ a: ASPIRIN, bad: 'C1CC(' }), libraries);
    expect(run.itemIds).toEqual(['a', 'bad']);
    expect(run.selections[0]).not.toBeNull();
    expect(run.selections[1]).toBeNull();
    expect(run.failing).toHaveLength(1);
    expect(run.failing[0].id).toBe('bad');
    expect(run.failing[0].error.code).toBe('invalid_smiles');
    const message = run.failing[0].error.message;
    expect(message).toContain('item "bad"');
    expect(message).toContain('$.items[1].references[0].structure.value');
    expect(message).toContain('"C1CC("');
    expect(message).toContain('unparsable SMILES');
    // The work counts the hits of the items that run.
    expect(run.work).toEqual({
      items: 2,
      hits_per_item: 5,
      total_hits: 5,
      exact_evaluations: 5 * run.selections[0]!.execution.shortlist_multiplier,
      failing_items: 1,
    });
  });

  it('gives the reason of each kind of bad reference (whitespace, "~")', async () => {
    const run = await checkRunDocument(batch({ tab: 'CCO\tCCN', any: '[#6]~[#7]' }), libraries);
    expect(run.failing.map((f) => f.id)).toEqual(['tab', 'any']);
    expect(run.failing[0].error.message).toContain('whitespace');
    expect(run.failing[1].error.message).toContain('any bond');
  });

  it('admits a batch whose every item is bad, with no hits to compute', async () => {
    const run = await checkRunDocument(batch({ x: 'C1CC(', y: 'not a molecule' }), libraries);
    expect(run.failing.map((f) => f.id)).toEqual(['x', 'y']);
    expect(run.work).toMatchObject({ items: 2, hits_per_item: 0, total_hits: 0, failing_items: 2 });
  });

  it('hashes the same document the same way, and another bad value differently', async () => {
    const a = await checkRunDocument(batch({ a: ASPIRIN, bad: 'C1CC(' }), libraries);
    const b = await checkRunDocument(batch({ a: ASPIRIN, bad: 'C1CC(' }), libraries);
    const c = await checkRunDocument(batch({ a: ASPIRIN, bad: 'C1CC((' }), libraries);
    expect(b.specificationHash).toBe(a.specificationHash);
    expect(c.specificationHash).not.toBe(a.specificationHash);
  });
});

describe('checkRunDocument: errors of the document stay errors (422)', () => {
  it('refuses kind selection with a bad reference: its selection is the document', async () => {
    const err = await refusal(
      checkRunDocument(
        {
          schema_version: 'run/1',
          kind: 'selection',
          selection: {
            ...template(),
            references: [{ id: 'q', structure: { format: 'smiles', value: 'C1CC(' } }],
          },
        },
        libraries,
      ),
    );
    expect(err.code).toBe('invalid_smiles');
    expect(err.message).toContain('$.selection.references[0].structure.value');
  });

  it("refuses a template structure query that does not parse, even beside an item's bad reference", async () => {
    const constraints = {
      structures: { all: [{ id: 's', query: { format: 'smarts', value: '[C' }, relation: 'contains' }] },
    };
    const err = await refusal(
      checkRunDocument(batch({ bad: 'C1CC(', a: ASPIRIN }, { constraints }), libraries),
    );
    expect(err.code).toBe('invalid_smiles');
    expect(err.issues.map((i) => i.loc.join('.'))).toEqual([
      'body.selection_template.constraints.structures.all.0.query.value',
    ]);
  });

  it('refuses a malformed reference (no structure): a shape error, not a molecule that does not parse', async () => {
    const doc = batch({ a: ASPIRIN, b: ASPIRIN });
    (doc.items[1].references[0] as Record<string, unknown>).structure = undefined;
    const err = await refusal(checkRunDocument(doc, libraries));
    expect(err.code).toBe('validation_error');
    expect(err.message).toContain('$.items[1].references[0]');
  });
});
