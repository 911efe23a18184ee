import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection, createServer } from 'node:net';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../testkit/ports.ts';
import { buildReferenceCatalog } from '../support/fixture-catalog.ts';
import { SERVICE_DEFAULTS, startServiceProcess, type ServiceProcess } from '../../testkit/service-process.ts';

/**
 * The start command as a user runs it: a real process tree (API, worker, Temporal dev server child,
 * PGlite under DATA_DIR), serving /molsearch with the key it prints, and stopping cleanly.
 */
let catalogDir: string;
let dataDir: string;
let smiles: string;

beforeAll(async () => {
  const built = await buildReferenceCatalog({ id: 'startcat', take: (_m, i) => i < 60 });
  catalogDir = built.dir;
  smiles = built.reference.molecules[5].input;
  dataDir = await mkdtemp(join(tmpdir(), 'start-data-'));
});

type Started = ServiceProcess;

// A start at load ~20 (CI beside other work) took over a minute: the start's wait (150 s) is
// longer than that and shorter than the tests' own timeouts, so a slow start fails with its
// output and its process killed, not a test timeout that leaves it holding the data directory.
const START_MS = 150_000;
const start = () =>
  startServiceProcess(
    { DATA_DIR: dataDir, CATALOG_DIR: catalogDir, BUILD_BUNDLED_CATALOGS: 'false' },
    { timeoutMs: START_MS },
  );
const stop = (s: Started) => s.stop();

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = createConnection({ host: '127.0.0.1', port });
    sock.once('connect', () => (sock.destroy(), resolve(true)));
    sock.once('error', () => resolve(false));
  });
}

let first: Started | undefined;
afterAll(async () => {
  if (first && first.child.exitCode === null) first.child.kill('SIGKILL');
});

describe('molsearch start (embedded defaults)', () => {
  it(
    'prints the URL and a development key that serves /molsearch, and is healthy',
    async () => {
      first = await start();
      const res = await fetch(
        `${first.url}/molsearch?search_input=${encodeURIComponent(smiles)}&search_type=morgan&n_neighbors=3`,
        { headers: { 'X-API-Key': first.key } },
      );
      expect(res.status).toBe(200);
      const body = (await res.json()) as { neighbors: { similarity: number; database: string }[] };
      expect(body.neighbors).toHaveLength(3);
      expect(body.neighbors[0]).toMatchObject({ similarity: 1, database: 'startcat' });
      const health = await fetch(`${first.url}/health`);
      expect(health.status).toBe(200);
      expect(((await health.json()) as { checks: Record<string, { ok: boolean }> }).checks).toMatchObject({
        temporal: { ok: true },
        database: { ok: true },
        object_store: { ok: true },
        catalogs: { ok: true },
      });
    },
    START_MS + 30_000,
  );

  it('stops on SIGTERM with exit code 0 and takes its Temporal child down', async () => {
    expect(await stop(first!)).toBe(0);
    expect(await portOpen(first!.temporalPort)).toBe(false);
  });

  it(
    'keeps the same development key across a restart on the same data directory',
    async () => {
      const again = await start();
      try {
        expect(again.key).toBe(first!.key);
        expect(again.out()).toMatch(/from data\/dev-api-key/);
      } finally {
        expect(await stop(again)).toBe(0);
      }
    },
    START_MS + 60_000,
  );

  it('refuses at once, naming the port and PORT, when another program holds the API port', async () => {
    const holder = createServer();
    await new Promise<void>((r) => holder.listen({ host: '127.0.0.1', port: 0 }, () => r()));
    const port = (holder.address() as { port: number }).port;
    const temporalPort = await freePort();
    try {
      const child = spawn(
        process.execPath,
        [fileURLToPath(new URL('../../bin/molsearch.ts', import.meta.url)), 'start'],
        {
          env: {
            ...process.env,
            ...SERVICE_DEFAULTS,
            PORT: String(port),
            TEMPORAL_PORT: String(temporalPort),
            TEMPORAL_UI_PORT: String(await freePort()),
            DATA_DIR: await mkdtemp(join(tmpdir(), 'start-taken-')),
            CATALOG_DIR: catalogDir,
            BUILD_BUNDLED_CATALOGS: 'false',
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let out = '';
      child.stdout!.on('data', (d) => (out += d));
      child.stderr!.on('data', (d) => (out += d));
      const started = Date.now();
      const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
      expect(code, out).toBe(1);
      expect(out).toContain(`port ${port} on 127.0.0.1 is in use by another process`);
      expect(out).toContain('PORT=');
      // Before Temporal: nothing was started on its port, and it took seconds, not minutes.
      expect(await portOpen(temporalPort)).toBe(false);
      expect(Date.now() - started).toBeLessThan(60_000);
    } finally {
      await new Promise<void>((r) => holder.close(() => r()));
    }
  }, 90_000);
});
