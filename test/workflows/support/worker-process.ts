import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import pg from 'pg';

/** Runs one statement on the PostgreSQL admin connection (create / drop a test database). */
export async function pgAdmin(adminUrl: string, sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 3000 });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

/**
 * Spawns `node bin/molsearch.ts worker` with `env` over this process's environment, adds it to
 * `track` (so the test can kill what it started) and resolves once it prints `worker ready`.
 */
export function spawnWorkerProcess(
  env: Record<string, string>,
  track: ChildProcess[],
): Promise<ChildProcess> {
  const child = spawn(process.execPath, [resolve('bin/molsearch.ts'), 'worker'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  track.push(child);
  return new Promise((ok, fail) => {
    let err = '';
    const timer = setTimeout(() => fail(new Error(`worker did not start: ${err}`)), 60_000);
    child.stdout!.on('data', (d: Buffer) => {
      if (d.toString().includes('worker ready')) {
        clearTimeout(timer);
        ok(child);
      }
    });
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()).slice(-4000));
    child.on('exit', (code) => fail(new Error(`worker exited with ${code}: ${err}`)));
  });
}
