import { loadConfig } from '../../platform/config.ts';
import { createLogger } from '../../platform/logger.ts';
import { ensureBundledCatalogs, runCatalogBuild } from '../../engine/catalog/index.ts';
import { REPO_ROOT } from '../stack.ts';
import { publishCatalogDir, runCatalogPublish } from './catalog-publish.ts';

/** `molsearch catalog build ...`, `molsearch catalog publish ...` and `molsearch catalog ensure`. */
export async function runCatalog(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === 'build') {
    // With S3_BUCKET set, a finished build is published to the object store.
    const config = loadConfig();
    return runCatalogBuild(rest, {
      afterBuild: config.s3 ? (dir) => publishCatalogDir(dir, config) : undefined,
    });
  }
  if (sub === 'publish') return runCatalogPublish(rest);
  if (sub === 'ensure') {
    const config = loadConfig();
    const log = createLogger({ level: config.logLevel, name: 'catalog' });
    await ensureBundledCatalogs({ catalogDir: config.catalogDir, repoRoot: REPO_ROOT, log });
    return 0;
  }
  process.stderr.write(
    'usage: molsearch catalog build --input FILE --out DIR --id ID [options] | molsearch catalog publish --id ID [--catalog-dir DIR] | molsearch catalog ensure\n',
  );
  return 2;
}
