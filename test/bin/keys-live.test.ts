import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtemp, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildReferenceCatalog } from '../support/fixture-catalog.ts';
import { startServiceProcess, type ServiceProcess } from '../../testkit/service-process.ts';

/**
 * Keys managed while the embedded service runs (issue 15, part 1): the `keys` CLI, a separate
 * process, goes through the running service, so a new key works at once, a revoked key is refused
 * at once, and the revocation survives a restart. A second `start` on the same data directory is
 * refused with a clear error instead of opening the PGlite directory behind the owner's back.
 */
let catalogDir: string;
let dataDir: string;
let smiles: string;
let service: ServiceProcess | undefined;

beforeAll(async () => {
  const built = await buildReferenceCatalog({ id: 'keyscat', take: (_m, i) => i < 40 });
  catalogDir = built.dir;
  smiles = built.reference.molecules[3].input;
  dataDir = await mkdtemp(join(tmpdir(), 'keys-live-'));
});
afterAll(async () => {
  if (service && service.child.exitCode === null) service.child.kill('SIGKILL');
});

const env = () => ({ DATA_DIR: dataDir, CATALOG_DIR: catalogDir, BUILD_BUNDLED_CATALOGS: 'false' });
const start = () => startServiceProcess(env());

function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['bin/molsearch.ts', 'keys', ...args],
      { env: { ...process.env, ...env(), LOG_LEVEL: 'warn' }, timeout: 60_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, out: stdout, err: stderr }),
    );
  });
}

async function molsearch(key: string): Promise<number> {
  const q = `search_input=${encodeURIComponent(smiles)}&search_type=morgan&n_neighbors=2`;
  const res = await fetch(`${service!.url}/molsearch?${q}`, { headers: { 'X-API-Key': key } });
  await res.arrayBuffer();
  return res.status;
}

describe('keys while the embedded service runs', () => {
  let key = '';
  let prefix = '';

  it('a key created by the CLI works at once', async () => {
    service = await start();
    const admin = await stat(join(dataDir, 'admin.json'));
    expect(admin.mode & 0o777).toBe(0o600);
    const made = await cli('create', '--tier', 'free', '--user', 'carol');
    expect(made.err).toBe('');
    expect(made.code).toBe(0);
    key = made.out.split('\n')[0];
    prefix = /prefix (\S+)\)/.exec(made.out)![1];
    expect(key).toMatch(/^ms_/);
    expect(await molsearch(key)).toBe(200);
  }, 180_000);

  it('a key revoked by the CLI is refused at once, and list shows it revoked', async () => {
    const revoked = await cli('revoke', prefix);
    expect(revoked.code).toBe(0);
    expect(revoked.out).toMatch(/revoked key/);
    expect(await molsearch(key)).toBe(401);
    const list = await cli('list', '--user', 'carol');
    expect(list.out).toMatch(/revoked/);
  });

  it('a bad command through the service is a clear error with a non-zero exit', async () => {
    const bad = await cli('revoke', 'ms_nosuchprefix');
    expect(bad.code).not.toBe(0);
    expect(bad.err).toMatch(/error: .*(no key|not found|unknown)/i);
  });

  it('a second start on the same data directory is refused with a clear error', async () => {
    const second = await start().then(
      async (s) => (await s.stop(), 'started'),
      (err: Error) => err.message,
    );
    expect(second).toMatch(/pglite\.lock is in use by process \d+ \(molsearch start/);
    expect(second).not.toMatch(/Aborted/);
    expect(await molsearch(key)).toBe(401); // the owner is unaffected
  }, 120_000);

  it('the revocation survives a restart, and the CLI then opens the store itself', async () => {
    expect(await service!.stop()).toBe(0);
    const offline = await cli('list', '--user', 'carol');
    expect(offline.code).toBe(0);
    expect(offline.out).toMatch(/revoked/);
    service = await start();
    expect(await molsearch(key)).toBe(401);
    expect(await molsearch(service.key)).toBe(200);
    expect(await service.stop()).toBe(0);
  }, 240_000);
});
