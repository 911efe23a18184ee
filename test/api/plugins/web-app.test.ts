import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Fastify, { type FastifyInstance } from 'fastify';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gzipSync } from 'node:zlib';
import { registerAuth, type AccountsPort } from '../../../api/plugins/auth.ts';
import { registerErrorHandler } from '../../../api/plugins/errors.ts';
import { registerWebApp } from '../../../api/plugins/web-app.ts';

/** A build laid out as Vite writes it (hashed files under assets/, compressed twins beside them). */
let dir: string;
const JS = 'console.log("molsearch");'.repeat(100);
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'web-dist-'));
  await mkdir(join(dir, 'assets'));
  await writeFile(join(dir, 'index.html'), '<!doctype html><title>molsearch</title>');
  await writeFile(join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  await writeFile(join(dir, 'assets', 'index-AbC123.js'), JS);
  await writeFile(join(dir, 'assets', 'index-AbC123.js.br'), brotliCompressSync(JS));
  await writeFile(join(dir, 'assets', 'index-AbC123.js.gz'), gzipSync(JS));
  await writeFile(join(dir, '.build-stamp'), 'x\n');
});
afterAll(() => rm(dir, { recursive: true, force: true }));

// Every key is refused: the pages must be reachable without one, the API must not.
const noAccounts: AccountsPort = {
  authenticate: async () => ({ ok: false, reason: 'unknown' }),
  consumeRequest: async () => {
    throw new Error('not reached');
  },
  usageStatus: async () => {
    throw new Error('not reached');
  },
};

async function app(buildDir: string): Promise<FastifyInstance> {
  const f = Fastify();
  registerErrorHandler(f);
  registerAuth(f, noAccounts);
  f.get('/api/v2/catalog', async () => ({ libraries: [] }));
  await registerWebApp(f, { dir: buildDir });
  await f.ready();
  return f;
}

describe('the web app plugin', () => {
  it('serves index.html at / without a key, revalidated on every load, with a strict CSP', async () => {
    const f = await app(dir);
    const res = await f.inject({ url: '/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.headers['content-security-policy']).toContain("connect-src 'self'");
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.body).toContain('<title>molsearch</title>');
    const again = await f.inject({ url: '/', headers: { 'if-none-match': res.headers.etag as string } });
    expect(again.statusCode).toBe(304);
    expect((await f.inject({ url: '/favicon.svg' })).headers['content-type']).toBe('image/svg+xml');
  });

  it('serves hashed assets as immutable for a year, Brotli or gzip when accepted, raw otherwise', async () => {
    const f = await app(dir);
    const br = await f.inject({ url: '/assets/index-AbC123.js', headers: { 'accept-encoding': 'gzip, br' } });
    expect(br.statusCode).toBe(200);
    expect(br.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toBe('accept-encoding');
    expect(brotliDecompressSync(br.rawPayload).toString()).toBe(JS);
    const gz = await f.inject({
      url: '/assets/index-AbC123.js',
      headers: { 'accept-encoding': 'gzip, br;q=0' },
    });
    expect(gz.headers['content-encoding']).toBe('gzip');
    const raw = await f.inject({
      url: '/assets/index-AbC123.js',
      headers: { 'accept-encoding': 'identity' },
    });
    expect(raw.headers['content-encoding']).toBeUndefined();
    expect(raw.body).toBe(JS);
    expect(raw.headers['content-type']).toBe('text/javascript; charset=utf-8');
  });

  it('answers 404 for unknown assets and paths outside the build, and leaves API routes to the API', async () => {
    const f = await app(dir);
    expect((await f.inject({ url: '/assets/missing.js' })).statusCode).toBe(404);
    expect((await f.inject({ url: '/assets/../../../etc/passwd' })).statusCode).toBe(404);
    expect((await f.inject({ url: '/assets/..%2f..%2fpackage.json' })).statusCode).toBe(404);
    expect((await f.inject({ url: '/assets/index-AbC123.js.br' })).statusCode).toBe(404);
    expect((await f.inject({ url: '/api/v2/catalog' })).statusCode).toBe(401);
  });

  it('picks up a rebuild without a restart', async () => {
    const f = await app(dir);
    await writeFile(join(dir, 'assets', 'index-New456.js'), 'new();');
    expect((await f.inject({ url: '/assets/index-New456.js' })).statusCode).toBe(404);
    await writeFile(join(dir, '.build-stamp'), 'y\n');
    await new Promise((r) => setTimeout(r, 20));
    await writeFile(join(dir, '.build-stamp'), 'z\n');
    const res = await f.inject({ url: '/assets/index-New456.js', headers: { 'accept-encoding': 'br' } });
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('new();');
  });

  it('explains how to build the app when there is no build, instead of a bare 404', async () => {
    const f = await app(join(dir, 'nothing-here'));
    const res = await f.inject({ url: '/' });
    expect(res.statusCode).toBe(503);
    expect(res.body).toContain('scripts/setup.sh');
  });
});
