/**
 * The synthon spaces shipped in the repo (catalogs/spaces/bundled.json + catalogs/spaces/sources/),
 * built on first start into the service's space directory (an interrupted build resumes).
 */
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { buildSpace } from './build-space.ts';
import { readManifest, type SpaceManifest } from './format.ts';

export interface BundledSpace {
  id: string;
  name: string;
  vendor: string;
  website: string;
  /** Path relative to catalogs/spaces/. */
  source: string;
  license: string;
}

export async function readBundledSpaces(repoRoot: string): Promise<BundledSpace[]> {
  const doc = JSON.parse(await readFile(join(repoRoot, 'catalogs', 'spaces', 'bundled.json'), 'utf8')) as {
    spaces: BundledSpace[];
  };
  return doc.spaces;
}

/** Builds every bundled space that spaceDir/<id> does not hold yet; returns the ids it built. */
export async function ensureBundledSpaces(opts: {
  spaceDir: string;
  repoRoot: string;
  log?: { info(obj: object, msg?: string): void };
  progress?: boolean;
}): Promise<string[]> {
  const built: string[] = [];
  for (const s of await readBundledSpaces(opts.repoRoot)) {
    const dir = join(opts.spaceDir, s.id);
    if (existsSync(join(dir, 'manifest.json'))) continue;
    opts.log?.info({ space: s.id }, 'building bundled synthon space');
    const res = await buildSpace({
      input: join(opts.repoRoot, 'catalogs', 'spaces', s.source),
      out: dir,
      id: s.id,
      name: s.name,
      source: `${s.vendor} (${s.license})`,
      progress: opts.progress,
    });
    opts.log?.info({ space: s.id, ...res.manifest.counts }, 'synthon space built');
    built.push(s.id);
  }
  return built;
}

/** The built spaces under spaceDir (directories with a valid manifest), by id. */
export async function listSpaces(
  spaceDir: string,
  ids: readonly string[],
): Promise<Array<{ dir: string; manifest: SpaceManifest }>> {
  const out: Array<{ dir: string; manifest: SpaceManifest }> = [];
  for (const id of ids) {
    const dir = join(spaceDir, id);
    try {
      out.push({ dir, manifest: await readManifest(dir) });
    } catch {
      // not built (or not a space): skipped
    }
  }
  return out;
}
