/**
 * The synthon spaces of a stack (bin/stack.ts): bundled spaces built on first start (seconds)
 * beside the catalogs, large ones built in the background after start (reported by /health).
 */
import { resolve } from 'node:path';
import type { Config } from '../platform/config.ts';
import type { Logger } from '../platform/logger.ts';
import type { SearchService } from '../api/services/search-service.ts';
import { withSynthonSpaces } from '../api/services/space-search.ts';
import {
  buildInBackground,
  ensureBundledSpaces,
  listSpaces,
  readBundledSpaces,
  type BackgroundBuild,
} from '../engine/synthons/bundled.ts';
import type { SpaceManifest } from '../engine/synthons/format.ts';
import { createSpacePool } from '../engine/synthons/space-pool.ts';
import { abortable } from './abortable.ts';

/** Opens the spaces and adds them to `catalogSearch`; the space pool's close joins `cleanups`. */
export async function openSynthonSpaces(opts: {
  config: Config;
  log: Logger;
  repoRoot: string;
  catalogSearch: SearchService;
  /** Build missing bundled spaces now, and the large ones in the background. */
  ensure: boolean;
  signal?: AbortSignal;
  cleanups: (() => Promise<unknown>)[];
}) {
  const { config, log, catalogSearch, cleanups, repoRoot } = opts;
  const spaceDir = resolve(config.dataDir, 'spaces');
  const bundledSpaces = await readBundledSpaces(repoRoot);
  if (opts.ensure) await abortable(ensureBundledSpaces({ spaceDir, repoRoot, log }), opts.signal);
  const spaces = await listSpaces(
    spaceDir,
    bundledSpaces.map((b) => b.id),
  );
  const spacePool = createSpacePool({
    dirs: spaces.map((s) => s.dir),
    largeProducts: config.largeSpaceProducts,
  });
  cleanups.push(() => spacePool.close());
  spacePool.start().catch((err: unknown) => log.warn({ err }, 'synthon space threads did not start'));
  const entryOf = (manifest: SpaceManifest) => {
    const b = bundledSpaces.find((x) => x.id === manifest.id)!;
    return { manifest, vendor: b.vendor, website: b.website, license: b.license };
  };
  // Read on every call by the search services: a background build pushes its space in when done.
  const spaceEntries = spaces.map((s) => entryOf(s.manifest));
  const defaultSpace = bundledSpaces.find((b) => b.default)?.id;
  let spaceBuilds: BackgroundBuild[] = [];
  const search = await withSynthonSpaces(catalogSearch, spaceEntries, spacePool, {
    defaultSpace,
    builds: () => spaceBuilds,
  });
  log.info({ spaces: spaces.map((s) => s.manifest.id) }, 'synthon spaces loaded');
  // Large bundled spaces (the 10^9-product default) build after start; /health reports them.
  spaceBuilds = opts.ensure
    ? bundledSpaces
        .filter((b) => b.background && !spaces.some((s) => s.manifest.id === b.id))
        .map((space) =>
          buildInBackground({
            space,
            spaceDir,
            repoRoot,
            log,
            onReady: (dir, manifest) => {
              spacePool.add(manifest.id, dir).then(
                () => spaceEntries.push(entryOf(manifest)),
                (err: unknown) => log.warn({ err, space: manifest.id }, 'synthon space did not open'),
              );
            },
          }),
        )
    : [];
  return { search, spaceEntries, spacePool, spaceBuilds };
}
