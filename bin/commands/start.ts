import { loadConfig } from '../../platform/config.ts';
import { createLogger } from '../../platform/logger.ts';
import { ensureDevKey } from '../dev-key.ts';
import { startStack } from '../stack.ts';

/** `molsearch start` (everything) and `molsearch api` (no worker): runs until SIGINT/SIGTERM. */
export async function runStart(_argv: string[], opts: { worker?: boolean } = {}): Promise<number> {
  const config = loadConfig();
  const log = createLogger({ level: config.logLevel, name: 'molsearch' });
  // Signals during start-up (a first-run catalog build takes minutes) must still stop the
  // Temporal child; the builder checkpoints, so the next start resumes.
  const startup = new AbortController();
  const early = (signal: string) => {
    log.info({ signal }, 'interrupted during start-up');
    startup.abort();
  };
  process.once('SIGINT', early);
  process.once('SIGTERM', early);
  let stack;
  try {
    stack = await startStack(config, log, { worker: opts.worker ?? true, signal: startup.signal });
  } catch (err) {
    if (startup.signal.aborted) process.exit(130);
    throw err;
  }
  process.off('SIGINT', early);
  process.off('SIGTERM', early);
  const { key, created } = await ensureDevKey(stack.store, config.dataDir);
  const base = stack.url.replace('0.0.0.0', '127.0.0.1');
  process.stdout.write(
    [
      '',
      `  molecule search service is up at ${base}`,
      `  web app:           ${base}/`,
      `  API docs:          ${base}/docs`,
      `  development key:   ${key}${created ? '   (new; also saved in data/dev-api-key)' : '   (from data/dev-api-key)'}`,
      `  try:               curl -H "X-API-Key: ${key}" "${base}/molsearch?search_input=CC(=O)Oc1ccccc1C(=O)O&search_type=morgan&n_neighbors=5"`,
      '',
    ].join('\n') + '\n',
  );
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    stack.stop().then(
      () => process.exit(0),
      (err) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  return -1;
}
