/**
 * The steps every caller of a selection takes before executing it, in one place: find the library
 * the document names, normalize the document for that library, and hash the normalized document.
 * The selections service (sync), the runs service (validating each item of a run) and the run-item
 * activity all prepare through here, so the same document is judged and hashed the same way.
 */
import { DomainError, invalidSmiles, validationError } from '../../platform/errors.ts';
import { getRDKit, parseMolecule } from '../chem/index.ts';
import { compileConditions } from './constraints.ts';
import type { Loc } from './check.ts';
import { documentHash } from './hash.ts';
import { libraryFacts, type Library } from './library.ts';
import { normalizeSelection, selectionDatabaseId } from './normalize.ts';
import type { LibraryRegistry } from './registry.ts';
import type { NormalizedSelection } from './spec.ts';

export interface PreparedSelection {
  library: Library;
  selection: NormalizedSelection;
  /** documentHash of the normalized selection (the selection_hash clients see). */
  hash: string;
}

/**
 * Prepares a molecule-selection/1 document. Throws validation_error naming each offending field
 * under `root` (e.g. `['body']`, or `[]` for a document nested elsewhere), including an unknown
 * database with the list of those served.
 */
export async function prepareSelection(
  libraries: LibraryRegistry,
  doc: unknown,
  root: Loc = ['body'],
): Promise<PreparedSelection> {
  const id = selectionDatabaseId(doc, root);
  const library = await libraries.get(id);
  if (!library) {
    const ids = (await libraries.list()).map((l) => l.info.database_id);
    throw validationError(
      [...root, 'database', 'database_id'],
      `unknown database ${JSON.stringify(id)}; available: ${ids.join(', ')}`,
      'value_error.database',
    );
  }
  const selection = normalizeSelection(doc, libraryFacts(library), root);
  await checkStructures(selection, root);
  return { library, selection, hash: documentHash(selection) };
}

/**
 * Parses every reference and structure query with RDKit as execution will, so validate, estimate,
 * a synchronous selection and a run's admission reject the same documents (a run no longer
 * accepts a reference that fails later as invalid_smiles).
 */
async function checkStructures(selection: NormalizedSelection, root: Loc): Promise<void> {
  const rd = await getRDKit();
  // Structure queries first: in a run they belong to the template, shared by every item, so a bad
  // one is the document's error even where an item's own reference is bad as well.
  try {
    compileConditions(rd, selection).free();
  } catch (err) {
    // compileConditions names fields from 'body'; re-root them where this document sits.
    if (!(err instanceof DomainError) || root[0] === 'body') throw err;
    const issues = err.issues.map((i) => ({ ...i, loc: [...root, ...i.loc.slice(1)] }));
    throw new DomainError(err.code, err.message, { issues });
  }
  selection.references.forEach((r, i) => {
    const parsed = parseMolecule(rd, r.structure.value);
    if ('error' in parsed)
      throw invalidSmiles(
        [...root, 'references', i, 'structure', 'value'],
        r.structure.value,
        `SMILES (${parsed.error})`,
      );
  });
}
