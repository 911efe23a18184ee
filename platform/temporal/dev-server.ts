import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, openSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { Connection } from '@temporalio/client';
import { processAlive, processStartTime } from '../process-lock.ts';

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
  /**
   * Where the child's pid is recorded while it runs (removed by stop()). A service killed with
   * SIGKILL cannot stop its child; the next start finds the orphan here (stopOrphanDevServer).
   */
  pidFile?: string;
}

interface PidRecord {
  pid: number;
  started?: number;
  port: number;
}

/**
 * Stops the dev server recorded in `pidFile` by a previous service that died without stopping it
 * (SIGKILL, OOM kill). Its data is in the SQLite file, so the new service starts a fresh child on
 * the same file and loses nothing. Resolves with the orphan's pid, or undefined when there was none.
 */
export async function stopOrphanDevServer(pidFile: string, graceMs = 10_000): Promise<number | undefined> {
  let rec: PidRecord;
  try {
    rec = JSON.parse(readFileSync(pidFile, 'utf8')) as PidRecord;
  } catch {
    return undefined;
  }
  const alive = () => Number.isInteger(rec.pid) && processAlive(rec.pid, rec.started);
  let orphan: number | undefined;
  if (alive()) {
    orphan = rec.pid;
    process.kill(rec.pid, 'SIGTERM');
    const deadline = Date.now() + graceMs;
    while (alive() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    if (alive()) process.kill(rec.pid, 'SIGKILL');
    while (alive()) await new Promise((r) => setTimeout(r, 50));
  }
  try {
    unlinkSync(pidFile);
  } catch {
    /* gone */
  }
  return orphan;
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
  const pidFile = opts.pidFile;
  const forget = () => {
    if (!pidFile) return;
    try {
      unlinkSync(pidFile);
    } catch {
      /* gone */
    }
  };
  if (pidFile && child.pid) {
    const rec: PidRecord = { pid: child.pid, started: processStartTime(child.pid), port: opts.port };
    mkdirSync(dirname(pidFile), { recursive: true });
    writeFileSync(pidFile, JSON.stringify(rec) + '\n');
  }
  let exit: string | undefined;
  child.once('exit', (code, signal) => {
    exit = `code ${code} signal ${signal}`;
    forget();
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
