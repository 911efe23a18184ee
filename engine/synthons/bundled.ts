/**
 * The synthon spaces shipped in the repo (catalogs/spaces/bundled.json + catalogs/spaces/sources/),
 * built on first start into the service's space directory (an interrupted build resumes).
 */
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { setPriority } from 'node:os';
import { buildSpace } from './build-space.ts';
import { readManifest, SPACE_FORMAT_VERSION, type SpaceManifest } from './format.ts';

export interface BundledSpace {
  id: string;
  name: string;
  vendor: string;
  website: string;
  /** Path relative to catalogs/spaces/. */
  source: string;
  license: string;
  /**
   * Built after the service starts, in a child process (a large space: minutes), so the first
   * start serves at once; the service adds it when its manifest is written.
   */
  background?: boolean;
  /** The default database of the legacy search endpoints once built. */
  default?: boolean;
  /**
   * Products of the built space (its manifest's count), so the listings can give the size of a
   * space still being built in the background.
   */
  products?: number;
}

export async function readBundledSpaces(repoRoot: string): Promise<BundledSpace[]> {
  const doc = JSON.parse(await readFile(join(repoRoot, 'catalogs', 'spaces', 'bundled.json'), 'utf8')) as {
    spaces: BundledSpace[];
  };
  return doc.spaces;
}

/**
 * Builds every bundled space that spaceDir/<id> does not hold yet (or holds in an older format
 * version), except the `background` ones
 * (buildInBackground); returns the ids it built.
 */
export async function ensureBundledSpaces(opts: {
  spaceDir: string;
  repoRoot: string;
  log?: { info(obj: object, msg?: string): void };
  progress?: boolean;
}): Promise<string[]> {
  const built: string[] = [];
  for (const s of await readBundledSpaces(opts.repoRoot)) {
    const dir = join(opts.spaceDir, s.id);
    if (s.background || (await builtVersion(dir)) === SPACE_FORMAT_VERSION) continue;
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

/**
 * The format version of the space built in `dir`, undefined when none is. A small bundled space of
 * an older version is rebuilt at start (seconds), so it gains the newer columns (the substructure
 * screen of version 2); a large background one stays readable as it is (format.ts).
 */
async function builtVersion(dir: string): Promise<number | undefined> {
  if (!existsSync(join(dir, 'manifest.json'))) return undefined;
  try {
    return (await readManifest(dir)).formatVersion;
  } catch {
    return undefined;
  }
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

/** State of a space built in the background, as readiness reports it. */
export interface BackgroundBuild {
  id: string;
  status: 'building' | 'ready' | 'failed';
  startedAt: string;
  finishedAt?: string;
  error?: string;
  /** The build's last progress line, parsed (absent until the first one, ~5 s in). */
  progress?: BuildProgress;
  /** What the listings show of the space while it builds (bundled.json). */
  info?: Pick<BundledSpace, 'name' | 'vendor' | 'website' | 'license' | 'products'>;
}

export interface BuildProgress {
  /** Of the build's work (build-work.ts: a ring-core step's pairs weigh more than rows). */
  percent: number;
  rows_done: number;
  rows_total: number;
  rejected: number;
  rows_per_second: number;
  eta_seconds: number;
}

/** Parses the builder's progress line (engine/catalog/builder/progress.ts) into numbers. */
export function parseBuildProgress(text: string): BuildProgress | undefined {
  const re = /(\d+(?:\.\d+)?)% (\d+)\/(\d+) rows, (\d+) rejected, (\d+)\/s, eta (\d+)s/g;
  let m: RegExpExecArray | null;
  let last: RegExpExecArray | undefined;
  while ((m = re.exec(text))) last = m;
  if (!last) return undefined;
  const [percent, done, total, rejected, rate, eta] = last.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  return { percent, rows_done: done, rows_total: total, rejected, rows_per_second: rate, eta_seconds: eta };
}

const CLI = new URL('../../bin/molsearch.ts', import.meta.url).pathname;

/**
 * Builds one bundled space in a child process (`molsearch space build`, resumable, at lower CPU
 * priority so the API stays responsive) and calls `onReady` with its manifest when done. The
 * returned record is updated in place.
 */
export function buildInBackground(opts: {
  space: BundledSpace;
  spaceDir: string;
  repoRoot: string;
  log?: { info(obj: object, msg?: string): void; warn(obj: object, msg?: string): void };
  onReady(dir: string, manifest: SpaceManifest): void;
}): BackgroundBuild {
  const { space: s } = opts;
  const dir = join(opts.spaceDir, s.id);
  const state: BackgroundBuild = {
    id: s.id,
    status: 'building',
    startedAt: new Date().toISOString(),
    info: { name: s.name, vendor: s.vendor, website: s.website, license: s.license, products: s.products },
  };
  const args = [
    ...process.execArgv,
    CLI,
    'space',
    'build',
    '--input',
    join(opts.repoRoot, 'catalogs', 'spaces', s.source),
    '--out',
    dir,
    '--id',
    s.id,
    '--name',
    s.name,
    '--source',
    `${s.vendor} (${s.license})`,
  ];
  opts.log?.info({ space: s.id }, 'building bundled synthon space in the background');
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  try {
    if (child.pid) setPriority(child.pid, 10);
  } catch {
    // not permitted: it runs at normal priority
  }
  let tail = '';
  child.stderr.on('data', (b: Buffer) => {
    tail = (tail + b.toString()).slice(-2000);
    state.progress = parseBuildProgress(tail) ?? state.progress;
  });
  // The service does not wait for this build to exit.
  child.unref();
  const fail = (err: unknown) => {
    state.status = 'failed';
    state.finishedAt = new Date().toISOString();
    const last = tail.trim().split('\n').pop() ?? '';
    state.error = `${err instanceof Error ? err.message : String(err)}${last ? `: ${last}` : ''}`;
    opts.log?.warn({ space: s.id, error: state.error }, 'synthon space build failed');
  };
  child.on('error', fail);
  child.on('exit', (code) => {
    if (code !== 0) return fail(new Error(`space build exited with code ${code}`));
    readManifest(dir).then((manifest) => {
      state.status = 'ready';
      // The manifest's count, not the last progress line's (printed up to a few seconds before
      // the end: /health said 2,053 rejected where rejects.tsv held 2,134, user trial).
      if (state.progress)
        state.progress = {
          ...state.progress,
          rows_done: state.progress.rows_total,
          rejected: manifest.counts.rejected,
          eta_seconds: 0,
        };
      state.finishedAt = new Date().toISOString();
      opts.log?.info({ space: s.id, ...manifest.counts }, 'synthon space built');
      opts.onReady(dir, manifest);
    }, fail);
  });
  return state;
}
