/** The Temporal server of a stack (bin/stack.ts): the configured one, or an embedded dev server. */
import { resolve } from 'node:path';
import type { Config } from '../platform/config.ts';
import type { Logger } from '../platform/logger.ts';
import { resolveTemporalCli } from '../platform/temporal/cli.ts';
import {
  startDevServer,
  stopOrphanDevServer,
  waitForTemporal,
  type DevServer,
} from '../platform/temporal/dev-server.ts';

/** Opens the Temporal server (embedded or configured) and returns its address. */
export async function openTemporal(
  config: Config,
  log: Logger,
): Promise<{ address: string; server?: DevServer }> {
  if (config.temporal.address) return { address: config.temporal.address };
  const address = `127.0.0.1:${config.temporal.embeddedPort}`;
  const pidFile = resolve(config.dataDir, 'temporal.pid');
  // The child of a service that was killed (SIGKILL) outlives it: stop it, then start our own on
  // the same SQLite file (jobs persist there), so this service owns, and stops, its Temporal.
  const orphan = await stopOrphanDevServer(pidFile);
  if (orphan) log.warn({ pid: orphan }, 'stopped the Temporal dev server a killed service left behind');
  try {
    // A server this service did not start (no pid record: a developer's own, or one left by an
    // older version) is reused, not fought over, and left running on shutdown.
    await waitForTemporal(address, 500);
    log.warn({ address }, 'reusing the Temporal dev server already listening on the embedded port');
    return { address };
  } catch {
    /* nothing there: start one */
  }
  const cli = resolveTemporalCli({
    explicit: config.temporal.cli,
    toolsDir: config.toolsDir,
    log: (m) => log.info(m),
  });
  log.info(
    { cli, port: config.temporal.embeddedPort, db: config.temporal.dbFile },
    'starting embedded Temporal dev server',
  );
  const server = await startDevServer({
    cli,
    port: config.temporal.embeddedPort,
    uiPort: config.temporal.embeddedUiPort,
    dbFile: config.temporal.dbFile,
    namespace: config.temporal.namespace,
    logFile: resolve(config.dataDir, 'temporal.log'),
    pidFile,
  });
  return { address: server.address, server };
}
