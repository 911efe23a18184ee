/**
 * Worker-thread entry of the selection pool. Opens each library once from its source descriptor
 * (a catalog directory into kernel memory, or in-memory molecules), then runs executeSelection
 * here, so RDKit post-filters and masked k-NN never occupy the caller's event loop.
 */
import { parentPort } from 'node:worker_threads';
import { openCatalog } from '../catalog/reader.ts';
import { executeSelection } from './execute.ts';
import {
  createMemoryLibrary,
  libraryFromRecords,
  type Library,
  type LibrarySource,
  type MoleculeRecord,
} from './library.ts';
import { openScanLibrary } from './catalog-library.ts';
import { serializeError, type ExecuteMessage, type SelectionReply } from './selection-protocol.ts';

if (!parentPort) throw new Error('selection-worker.ts must run as a worker thread');
const port = parentPort;
const sources = new Map<string, LibrarySource>();
const libraries = new Map<string, Promise<Library>>();

async function open(source: LibrarySource): Promise<Library> {
  if (source.kind === 'catalog') return openScanLibrary(await openCatalog(source.dir));
  const parsed = source.molecules.every((m) => 'fp' in m);
  return parsed
    ? libraryFromRecords(source.info, source.molecules as MoleculeRecord[])
    : createMemoryLibrary(source.info, source.molecules);
}

function library(key: string): Promise<Library> {
  let p = libraries.get(key);
  if (!p) {
    const source = sources.get(key);
    if (!source) return Promise.reject(new Error(`selection thread has no source for library ${key}`));
    p = open(source);
    libraries.set(key, p);
    p.catch(() => libraries.delete(key)); // a failed open (e.g. a catalog being rebuilt) is retried next time
  }
  return p;
}

port.on('message', (msg: ExecuteMessage) => {
  if (msg.source) sources.set(msg.key, msg.source);
  library(msg.key)
    .then((lib) => executeSelection(lib, msg.selection))
    .then(
      (outcome) => port.postMessage({ t: 'done', id: msg.id, outcome } satisfies SelectionReply),
      (err) =>
        port.postMessage({ t: 'error', id: msg.id, error: serializeError(err) } satisfies SelectionReply),
    );
});
