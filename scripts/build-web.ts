// Builds the web app (web/ → web/dist) with Vite and writes Brotli and gzip twins of the
// compressible files, which the API serves as they are. Skips the build when web/dist was made
// from the same sources and lockfile (a stamp holds their hash), so `scripts/setup.sh` stays fast.
// Usage: node scripts/build-web.ts [--force]
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const WEB = join(ROOT, 'web');
const DIST = join(WEB, 'dist');
const STAMP = join(DIST, '.build-stamp');
const COMPRESSIBLE = /\.(js|css|html|svg|json|wasm|txt)$/;

async function files(dir: string, skip: (p: string) => boolean): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (skip(p)) continue;
    if (e.isDirectory()) out.push(...(await files(p, skip)));
    else if (e.isFile()) out.push(p);
  }
  return out.sort();
}

/** Hash of everything the build reads from the repo: web/ sources, the lockfile, this script. */
async function sourceHash(): Promise<string> {
  const h = createHash('sha256');
  const inputs = [
    ...(await files(WEB, (p) => p === DIST || p.endsWith('node_modules'))),
    join(ROOT, 'package-lock.json'),
    fileURLToPath(import.meta.url),
  ];
  for (const f of inputs)
    h.update(relative(ROOT, f))
      .update('\0')
      .update(await readFile(f))
      .update('\0');
  return h.digest('hex');
}

async function compress(dir: string): Promise<void> {
  for (const f of await files(dir, () => false)) {
    if (!COMPRESSIBLE.test(f)) continue;
    const raw = await readFile(f);
    if (raw.length < 1024) continue;
    // Quality 9 is within a few percent of 11 on the RDKit module and ten times faster.
    await writeFile(
      f + '.br',
      brotliCompressSync(raw, {
        params: { [constants.BROTLI_PARAM_QUALITY]: 9, [constants.BROTLI_PARAM_SIZE_HINT]: raw.length },
      }),
    );
    await writeFile(f + '.gz', gzipSync(raw, { level: 9 }));
  }
}

/** Builds web/dist unless it is up to date; returns whether a build ran. */
export async function ensureWebBuild(opts: { force?: boolean; log?: (m: string) => void } = {}) {
  const log = opts.log ?? ((m: string) => console.log(m));
  const hash = await sourceHash();
  const current = existsSync(STAMP) ? (await readFile(STAMP, 'utf8')).trim() : '';
  if (!opts.force && current === hash && existsSync(join(DIST, 'index.html')))
    return { built: false, dir: DIST };
  log('Building the web app (web/ → web/dist) ...');
  const t0 = performance.now();
  const { build } = await import('vite');
  await build({ configFile: join(WEB, 'vite.config.ts'), logLevel: 'warn' });
  await compress(DIST);
  await writeFile(STAMP, hash + '\n');
  log(`Web app built in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return { built: true, dir: DIST };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await ensureWebBuild({ force: process.argv.includes('--force') });
}
