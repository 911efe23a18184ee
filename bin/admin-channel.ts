/**
 * The embedded service's local admin channel: while `molsearch start` owns the PGlite directory
 * (no other process may open it), `molsearch keys` reaches the service's own store through this
 * loopback HTTP endpoint, so a key created or revoked takes effect at once and is never lost.
 *
 * The service writes `<dataDir>/admin.json` (mode 0600: pid, port, a random secret); only a user
 * who can read that file can call the channel. The channel runs exactly the `keys` command of the
 * CLI (store/keys-cli.ts) and answers its printed lines, or its error message.
 */
import { createServer, type Server } from 'node:http';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DomainError } from '../platform/errors.ts';
import type { Logger } from '../platform/logger.ts';
import { processAlive, processStartTime } from '../platform/process-lock.ts';
import { runKeysCommand } from '../store/keys-cli.ts';
import type { Store } from '../store/index.ts';

interface AdminFile {
  pid: number;
  started?: number;
  port: number;
  secret: string;
}

const MAX_BODY = 64 * 1024;
export const adminFile = (dataDir: string) => join(dataDir, 'admin.json');

export interface AdminChannel {
  port: number;
  close(): Promise<void>;
}

/** Starts the channel on a free loopback port and publishes it in `<dataDir>/admin.json`. */
export async function startAdminChannel(opts: {
  dataDir: string;
  store: Pick<Store, 'accounts'>;
  log: Logger;
}): Promise<AdminChannel> {
  const secret = randomBytes(32).toString('hex');
  const expected = Buffer.from(`Bearer ${secret}`);
  const server: Server = createServer((req, res) => {
    const reply = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const given = Buffer.from(req.headers.authorization ?? '');
    if (given.length !== expected.length || !timingSafeEqual(given, expected))
      return reply(401, { error: 'bad admin secret' });
    if (req.method !== 'POST' || req.url !== '/keys') return reply(404, { error: 'not found' });
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      raw += chunk;
      if (raw.length > MAX_BODY) req.destroy();
    });
    req.on('end', () => {
      let argv: unknown;
      try {
        argv = (JSON.parse(raw) as { argv?: unknown }).argv;
      } catch {
        argv = undefined;
      }
      if (!Array.isArray(argv) || !argv.every((a) => typeof a === 'string'))
        return reply(400, { error: 'body must be {"argv": [string, ...]}' });
      const lines: string[] = [];
      runKeysCommand(argv, { store: opts.store, print: (l) => lines.push(l) }).then(
        () => reply(200, { lines }),
        (err: unknown) => {
          if (err instanceof DomainError) return reply(400, { error: err.message, code: err.code });
          opts.log.error({ err }, 'admin channel: keys command failed');
          reply(500, { error: 'internal error; see the service log' });
        },
      );
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  const file = adminFile(opts.dataDir);
  const content: AdminFile = { pid: process.pid, started: processStartTime(process.pid), port, secret };
  // Replace, never append to, a file left by a killed service; 0600 keeps the secret to the owner.
  try {
    unlinkSync(file);
  } catch {
    /* none */
  }
  writeFileSync(file, JSON.stringify(content) + '\n', { mode: 0o600, flag: 'wx' });
  return {
    port,
    async close() {
      try {
        const current = JSON.parse(readFileSync(file, 'utf8')) as AdminFile;
        if (current.pid === process.pid) unlinkSync(file);
      } catch {
        /* gone already */
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Runs a `keys` command through the running service of `dataDir`. Resolves with the printed
 * lines, or undefined when no live service publishes a channel there (the caller then opens the
 * store itself). Rejects with the command's own message when the service refused it.
 */
export async function callAdminChannel(dataDir: string, argv: string[]): Promise<string[] | undefined> {
  let info: AdminFile;
  try {
    info = JSON.parse(readFileSync(adminFile(dataDir), 'utf8')) as AdminFile;
  } catch {
    return undefined;
  }
  if (!Number.isInteger(info.pid) || !processAlive(info.pid, info.started)) return undefined;
  let res: Response;
  try {
    res = await fetch(`http://127.0.0.1:${info.port}/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${info.secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ argv }),
      signal: AbortSignal.timeout(30_000),
    });
  } catch (err) {
    throw new Error(
      `the service (pid ${info.pid}) owns ${dataDir} but its admin channel on port ${info.port} ` +
        `did not answer (${(err as Error).message}); retry when it is up, or stop it and run again`,
      { cause: err },
    );
  }
  const body = (await res.json().catch(() => ({}))) as { lines?: string[]; error?: string; code?: string };
  if (res.ok && Array.isArray(body.lines)) return body.lines;
  if (body.code) throw new DomainError(body.code as 'validation_error', body.error ?? 'refused');
  throw new Error(`the service's admin channel answered ${res.status}: ${body.error ?? 'no detail'}`);
}
