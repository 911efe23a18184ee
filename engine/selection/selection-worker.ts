/**
 * Thread entry of the selection pool. Opens each library once from its source descriptor
 * (a catalog directory into kernel memory, or in-memory molecules), then runs executeSelection
 * here, so RDKit post-filters and masked k-NN never occupy the caller's event loop.
 */
import { openCatalog } from '../catalog/reader.ts';
import { executeSelection, type SelectionOutcome } from './execute.ts';
import {
  createMemoryLibrary,
  libraryFromRecords,
  type Library,
  type LibrarySource,
  type MoleculeRecord,
} from './library.ts';
import { openScanLibrary } from './catalog-library.ts';
import type { ExecuteMessage } from './selection-protocol.ts';
import { serveThread } from '../threads/thread.ts';

serveThread<ExecuteMessage, SelectionOutcome>(() => {
  const sources = new Map<string, LibrarySource>();
  const libraries = new Map<string, Promise<Library>>();
  const library = (key: string): Promise<Library> => {
    let p = libraries.get(key);
    if (!p) {
      const source = sources.get(key);
      if (!source) return Promise.reject(new Error(`selection thread has no source for library ${key}`));
      p = open(source);
      libraries.set(key, p);
      p.catch(() => libraries.delete(key)); // a failed open (e.g. a catalog being rebuilt) is retried next time
    }
    return p;
  };
  return {
    async handle(msg) {
      if (msg.source) sources.set(msg.key, msg.source);
      return executeSelection(await library(msg.key), msg.selection, msg.external);
    },
  };
});

async function open(source: LibrarySource): Promise<Library> {
  if (source.kind === 'catalog') return openScanLibrary(await openCatalog(source.dir));
  const parsed = source.molecules.every((m) => 'fp' in m);
  return parsed
    ? libraryFromRecords(source.info, source.molecules as MoleculeRecord[])
    : createMemoryLibrary(source.info, source.molecules);
}
