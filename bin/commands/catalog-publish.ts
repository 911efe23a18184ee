import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig, type Config } from '../../platform/config.ts';
import { createLogger } from '../../platform/logger.ts';
import { openObjectStore } from '../../platform/object-store/index.ts';
import { MANIFEST_FILE, publishCatalog } from '../../engine/catalog/index.ts';

export const CATALOG_PUBLISH_USAGE = `usage: molsearch catalog publish --id ID [--catalog-dir DIR]
Uploads catalog ID (DIR/ID, or DIR itself when it is that catalog; DIR defaults to CATALOG_DIR) to the
object store (S3 when S3_BUCKET is set, else DATA_DIR/objects): manifest, shards and sidecar files with
their SHA-256, then catalogs/ID/publication.json. A rerun uploads only what changed.`;

/** Where catalog `id` is under `root`: root/id, or root itself when its manifest names id. */
function locate(root: string, id: string): string | undefined {
  if (existsSync(join(root, id, MANIFEST_FILE))) return join(root, id);
  try {
    const m = JSON.parse(readFileSync(join(root, MANIFEST_FILE), 'utf8')) as { id?: unknown };
    if (m.id === id) return root;
  } catch {
    /* not a catalog directory */
  }
  return undefined;
}

/** Publishes the catalog in `dir` to the configured object store; prints a one-line JSON summary. */
export async function publishCatalogDir(dir: string, config: Config = loadConfig()): Promise<void> {
  const log = createLogger({ level: config.logLevel, name: 'catalog-publish' });
  const store = await openObjectStore(config);
  const r = await publishCatalog({ dir, store, log });
  process.stdout.write(
    `${JSON.stringify({ published: r.id, store: store.kind, files: r.files.length, uploaded: r.uploaded, bytes_uploaded: r.bytesUploaded })}\n`,
  );
}

/** `molsearch catalog publish`; returns the exit code (0 published, 2 usage, 1 failure). */
export async function runCatalogPublish(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        id: { type: 'string' },
        'catalog-dir': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${CATALOG_PUBLISH_USAGE}\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(`${CATALOG_PUBLISH_USAGE}\n`);
    return 0;
  }
  if (!values.id || !/^[\w.-]+$/.test(values.id)) {
    process.stderr.write(
      `--id: ${values.id ? 'a catalog id has only letters, digits, _ . -' : 'missing'}\n${CATALOG_PUBLISH_USAGE}\n`,
    );
    return 2;
  }
  const config = loadConfig();
  const root = resolve(values['catalog-dir'] ?? config.catalogDir);
  const dir = locate(root, values.id);
  if (!dir) {
    process.stderr.write(
      `--catalog-dir: no catalog ${values.id} in ${root} (neither ${join(root, values.id, MANIFEST_FILE)} nor a manifest of ${values.id} in ${root})\n`,
    );
    return 2;
  }
  try {
    await publishCatalogDir(dir, config);
    return 0;
  } catch (err) {
    process.stderr.write(`catalog publish failed: ${(err as Error).message}\n`);
    return 1;
  }
}
