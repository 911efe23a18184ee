/**
 * The steps every caller of a selection takes before executing it, in one place: find the library
 * the document names, normalize the document for that library, and hash the normalized document.
 * The selections service (sync), the runs service (validating each item of a run) and the run-item
 * activity all prepare through here, so the same document is judged and hashed the same way.
 */
import { validationError } from '../../platform/errors.ts';
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
  return { library, selection, hash: documentHash(selection) };
}
