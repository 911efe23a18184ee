import { loadConfig } from '../../platform/config.ts';
import { createLogger } from '../../platform/logger.ts';
import { openStore } from '../../store/index.ts';
import { runKeysCommand } from '../../store/keys-cli.ts';

/** `molsearch keys create|list|revoke`: manages API keys in the configured metadata store. */
export async function runKeys(argv: string[]): Promise<number> {
  const config = loadConfig();
  const log = createLogger({ level: 'warn', pretty: false });
  const store = await openStore(
    { databaseUrl: config.databaseUrl, pgliteDir: config.pgliteDir, tierLimits: config.tierLimits },
    log,
  );
  try {
    await runKeysCommand(argv, { store, print: (line: string) => process.stdout.write(line + '\n') });
    return 0;
  } finally {
    await store.close();
  }
}
