import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createReadStream, existsSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Serves the built web app (web/dist, made by scripts/build-web.ts at setup) at `/`. Vite puts
 * content-hashed files under assets/, so those are cached for a year as immutable; index.html
 * (and the few unhashed top-level files) are revalidated on every load (no-cache + ETag), so a
 * new build is picked up at once. Files are served pre-compressed (.br, .gz written by the build)
 * when the browser accepts it: RDKit's WebAssembly module is 7 MB raw, about 2 MB as Brotli.
 * The routes need no API key: the pages are public, the data they show is not.
 */

export const WEB_DIST_DIR = fileURLToPath(new URL('../../web/dist', import.meta.url));

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.json': 'application/json; charset=utf-8',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
};

// The pages fetch only this origin; RDKit needs wasm compilation; Preact sets style attributes.
const CSP = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

interface Variant {
  path: string;
  size: number;
}
interface Asset extends Variant {
  type: string;
  etag: string;
  immutable: boolean;
  br?: Variant;
  gzip?: Variant;
}

async function walk(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await walk(p)));
    else if (e.isFile()) out.push(p);
  }
  return out;
}

/** Every servable file of the build keyed by URL path ('/assets/x.js'), with its compressed twins. */
async function indexBuild(dir: string): Promise<Map<string, Asset>> {
  const files = await walk(dir);
  const present = new Set(files);
  const assets = new Map<string, Asset>();
  for (const file of files) {
    if (/\.(br|gz)$/.test(file) || file.endsWith('.build-stamp')) continue;
    const url = '/' + relative(dir, file).split(sep).join('/');
    const s = await stat(file);
    const variant = async (p: string) =>
      present.has(p) ? { path: p, size: (await stat(p)).size } : undefined;
    assets.set(url, {
      path: file,
      size: s.size,
      type: TYPES[extname(file)] ?? 'application/octet-stream',
      etag: `"${s.size.toString(36)}-${Math.floor(s.mtimeMs).toString(36)}"`,
      immutable: url.startsWith('/assets/'),
      br: await variant(file + '.br'),
      gzip: await variant(file + '.gz'),
    });
  }
  return assets;
}

/** The encodings the client accepts with a non-zero quality ('br;q=0' refuses Brotli). */
function accepted(header: string | undefined): Set<string> {
  const out = new Set<string>();
  for (const part of (header ?? '').split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => /^\s*q=([\d.]+)/.exec(p)?.[1]).find(Boolean);
    if (name && (q === undefined || Number(q) > 0)) out.add(name);
  }
  return out;
}

function pickVariant(asset: Asset, acceptEncoding: string | undefined): [Variant, string | undefined] {
  const ok = accepted(acceptEncoding);
  if (asset.br && ok.has('br')) return [asset.br, 'br'];
  if (asset.gzip && ok.has('gzip')) return [asset.gzip, 'gzip'];
  return [asset, undefined];
}

function send(request: FastifyRequest, reply: FastifyReply, asset: Asset) {
  const [variant, encoding] = pickVariant(asset, request.headers['accept-encoding']);
  reply.header('content-type', asset.type);
  reply.header('cache-control', asset.immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
  reply.header('etag', asset.etag);
  reply.header('vary', 'accept-encoding');
  reply.header('x-content-type-options', 'nosniff');
  if (asset.type.startsWith('text/html')) {
    reply.header('content-security-policy', CSP);
    reply.header('referrer-policy', 'no-referrer');
  }
  if (request.headers['if-none-match'] === asset.etag) return reply.status(304).send();
  if (encoding) reply.header('content-encoding', encoding);
  reply.header('content-length', String(variant.size));
  return reply.send(createReadStream(variant.path));
}

/** Registers `/`, `/assets/*` and the build's top-level files; without a build, `/` explains how to make one. */
export async function registerWebApp(app: FastifyInstance, opts: { dir?: string } = {}): Promise<void> {
  const dir = opts.dir ?? WEB_DIST_DIR;
  const route = { config: { auth: false }, schema: { hide: true } } as const;
  if (!existsSync(join(dir, 'index.html'))) {
    app.log.warn({ dir }, 'web app not built: run bash scripts/setup.sh (or npm run build:web)');
    app.get('/', route, async (_request, reply) =>
      reply
        .status(503)
        .type('text/plain; charset=utf-8')
        .send(
          'The web app has not been built. Run `bash scripts/setup.sh` (or `npm run build:web`) and restart; the API is at /docs.\n',
        ),
    );
    return;
  }
  // A rebuild while the service runs (npm run build:web) replaces the hashed files: the index is
  // re-read when the build stamp changes, so the new pages are served without a restart.
  const stampFile = join(dir, '.build-stamp');
  const stampOf = async () => (await stat(stampFile).catch(() => undefined))?.mtimeMs ?? 0;
  let built = { stamp: await stampOf(), assets: await indexBuild(dir) };
  const current = async () => {
    const stamp = await stampOf();
    if (stamp !== built.stamp) built = { stamp, assets: await indexBuild(dir) };
    return built.assets;
  };
  const serve = (url: string) => async (request: FastifyRequest, reply: FastifyReply) => {
    const asset = (await current()).get(url);
    return asset ? send(request, reply, asset) : reply.callNotFound();
  };
  app.get('/', route, serve('/index.html'));
  app.get('/assets/*', route, (request, reply) =>
    serve('/assets/' + (request.params as { '*': string })['*'])(request, reply),
  );
  for (const [url, asset] of built.assets) if (!asset.immutable) app.get(url, route, serve(url));
}
