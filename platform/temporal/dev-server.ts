import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { Connection } from '@temporalio/client';

export interface DevServer {
  address: string;
  /** Stops the child server (SIGTERM, then SIGKILL after a grace period). */
  stop(): Promise<void>;
}

export interface DevServerOptions {
  cli: string;
  port: number;
  uiPort?: number;
  /** SQLite file that makes workflows survive a restart; undefined means in-memory. */
  dbFile?: string;
  namespace?: string;
  logFile?: string;
  readyTimeoutMs?: number;
}

/** Polls the frontend until it answers a real RPC, so callers never race the server's start-up. */
export async function waitForTemporal(
  address: string,
  timeoutMs: number,
  isDead?: () => string | undefined,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    const dead = isDead?.();
    if (dead) throw new Error(`Temporal dev server exited during start-up: ${dead}`);
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1000 });
      try {
        await connection.workflowService.getSystemInfo({});
        return;
      } finally {
        await connection.close();
      }
    } catch (err) {
      lastError = err;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  throw new Error(
    `Temporal at ${address} did not become healthy within ${timeoutMs} ms: ${String(lastError)}`,
  );
}

/** Starts `temporal server start-dev` as a child process and waits until it is healthy. */
export async function startDevServer(opts: DevServerOptions): Promise<DevServer> {
  const args = [
    'server',
    'start-dev',
    '--headless',
    '--ip',
    '127.0.0.1',
    '--port',
    String(opts.port),
    '--log-level',
    'warn',
  ];
  if (opts.uiPort) args.push('--ui-port', String(opts.uiPort));
  if (opts.dbFile) {
    mkdirSync(dirname(opts.dbFile), { recursive: true });
    args.push('--db-filename', opts.dbFile);
  }
  if (opts.namespace && opts.namespace !== 'default') args.push('--namespace', opts.namespace);
  let out: number | 'ignore' = 'ignore';
  if (opts.logFile) {
    mkdirSync(dirname(opts.logFile), { recursive: true });
    out = openSync(opts.logFile, 'a');
  }
  const child: ChildProcess = spawn(opts.cli, args, { stdio: ['ignore', out, out] });
  let exit: string | undefined;
  child.once('exit', (code, signal) => {
    exit = `code ${code} signal ${signal}`;
  });
  child.once('error', (err) => {
    exit = String(err);
  });
  const address = `127.0.0.1:${opts.port}`;
  try {
    await waitForTemporal(address, opts.readyTimeoutMs ?? 60_000, () => exit);
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
  return {
    address,
    async stop() {
      if (exit) return;
      const exited = new Promise<void>((r) => child.once('exit', () => r()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}
