import { loadConfig } from '../../platform/config.ts';
import { createLogger } from '../../platform/logger.ts';
import { openStore } from '../../store/index.ts';
import { runKeysCommand } from '../../store/keys-cli.ts';
import { callAdminChannel } from '../admin-channel.ts';

/**
 * `molsearch keys create|list|revoke`. With the embedded database, a running service owns it:
 * the command then goes through the service's admin channel (bin/admin-channel.ts), so it takes
 * effect at once. Otherwise (no service, or PostgreSQL) it opens the store itself.
 */
export async function runKeys(argv: string[]): Promise<number> {
  const config = loadConfig();
  const print = (line: string) => process.stdout.write(line + '\n');
  if (!config.databaseUrl) {
    const lines = await callAdminChannel(config.dataDir, argv);
    if (lines) {
      for (const line of lines) print(line);
      return 0;
    }
  }
  const log = createLogger({ level: 'warn', pretty: false });
  const store = await openStore(
    { databaseUrl: config.databaseUrl, pgliteDir: config.pgliteDir, tierLimits: config.tierLimits },
    log,
  );
  try {
    await runKeysCommand(argv, { store, print });
    return 0;
  } finally {
    await store.close();
  }
}
