import { loadConfig } from '../../platform/config.ts';
import { createLogger } from '../../platform/logger.ts';
import { ensureBundledCatalogs, runCatalogBuild } from '../../engine/catalog/index.ts';
import { REPO_ROOT } from '../stack.ts';

/** `molsearch catalog build ...` and `molsearch catalog ensure`. */
export async function runCatalog(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === 'build') {
    await runCatalogBuild(rest);
    return 0;
  }
  if (sub === 'ensure') {
    const config = loadConfig();
    const log = createLogger({ level: config.logLevel, name: 'catalog' });
    await ensureBundledCatalogs({ catalogDir: config.catalogDir, repoRoot: REPO_ROOT, log });
    return 0;
  }
  process.stderr.write(
    'usage: molsearch catalog build --input FILE --out DIR --id ID [options] | molsearch catalog ensure\n',
  );
  return 2;
}
