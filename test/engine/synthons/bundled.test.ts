// Background builds of large bundled spaces (bundled.ts buildInBackground) and spaces added to a
// running pool (space-pool.ts add): the real CLI in a child process, the real engine thread.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  buildInBackground,
  ensureBundledSpaces,
  listSpaces,
  parseBuildProgress,
  type BundledSpace,
} from '../../../engine/synthons/bundled.ts';
import { createSpacePool } from '../../../engine/synthons/space-pool.ts';
import { SPACE_FORMAT_VERSION, type SpaceManifest } from '../../../engine/synthons/format.ts';

const REPO = new URL('../../../', import.meta.url).pathname;
let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'bundled-bg-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const amide: BundledSpace = {
  id: 'amide_bg',
  name: 'amides',
  vendor: 'RDKit test data',
  website: 'https://github.com/rdkit/rdkit',
  source: 'sources/amide_space.txt',
  license: 'BSD-3-Clause',
  background: true,
};

function waitReady(space: BundledSpace) {
  return new Promise<{ state: ReturnType<typeof buildInBackground>; dir: string; manifest?: SpaceManifest }>(
    (resolve) => {
      const state = buildInBackground({
        space,
        spaceDir: root,
        repoRoot: REPO,
        onReady: (dir, manifest) => resolve({ state, dir, manifest }),
      });
      const timer = setInterval(() => {
        if (state.status === 'failed') {
          clearInterval(timer);
          resolve({ state, dir: '' });
        }
      }, 200);
      timer.unref();
    },
  );
}

describe('background space builds', () => {
  it(
    'builds in a child process, reports ready, and a running pool then searches the space',
    { timeout: 300_000 },
    async () => {
      const pool = createSpacePool({ dirs: [] });
      try {
        const { state, dir, manifest } = await waitReady(amide);
        expect(state.status).toBe('ready');
        expect(manifest!.counts).toMatchObject({ reactions: 1, products: 12 });
        await pool.add(manifest!.id, dir);
        const sample = await pool.sample('amide_bg', 5, 1);
        expect(sample.products.length).toBe(5);
      } finally {
        await pool.close();
      }
    },
  );

  it('reports a failed build with the reason', { timeout: 300_000 }, async () => {
    const { state } = await waitReady({ ...amide, id: 'missing_bg', source: 'sources/no_such_file.txt' });
    expect(state.status).toBe('failed');
    expect(state.error).toMatch(/exited with code/);
  });
});

describe('bundled spaces of an older format version', () => {
  it('are still listed, and rebuilt at start to the current version', async () => {
    // A repo root of its own holding one small bundled space.
    const repo = join(root, 'repo');
    await mkdir(join(repo, 'catalogs', 'spaces', 'sources'), { recursive: true });
    await cp(
      join(REPO, 'catalogs/spaces/sources/amide_space.txt'),
      join(repo, 'catalogs/spaces/sources/amide_space.txt'),
    );
    const { background: _, ...small } = { ...amide, id: 'amide_small' };
    await writeFile(join(repo, 'catalogs', 'spaces', 'bundled.json'), JSON.stringify({ spaces: [small] }));
    const spaceDir = join(root, 'spaces');
    expect(await ensureBundledSpaces({ spaceDir, repoRoot: repo })).toEqual(['amide_small']);
    expect(await ensureBundledSpaces({ spaceDir, repoRoot: repo })).toEqual([]);
    // Mark it as built by format version 1: still readable, and rebuilt by the next start.
    const file = join(spaceDir, 'amide_small', 'manifest.json');
    const m = JSON.parse(await readFile(file, 'utf8')) as SpaceManifest;
    await writeFile(file, JSON.stringify({ ...m, formatVersion: 1 }));
    expect((await listSpaces(spaceDir, ['amide_small']))[0].manifest.formatVersion).toBe(1);
    expect(await ensureBundledSpaces({ spaceDir, repoRoot: repo })).toEqual(['amide_small']);
    expect((await listSpaces(spaceDir, ['amide_small']))[0].manifest.formatVersion).toBe(
      SPACE_FORMAT_VERSION,
    );
  });
});

describe('background build progress', () => {
  it('reads the latest progress line the builder wrote, for /health', () => {
    const tail =
      'space s [###....] 10.0% 64362/643625 rows, 0 rejected, 700/s, eta 827s\n' +
      'space s [######.] 18.6% 119748/643625 rows, 2 rejected, 715/s, eta 733s\n' +
      // The percent counts work, not rows (build-work.ts): a ring-core step moves it alone.
      'space s [#######] 23.4% 119748/643625 rows, 2 rejected, 715/s, eta 733s\n';
    expect(parseBuildProgress(tail)).toEqual({
      percent: 23.4,
      rows_done: 119748,
      rows_total: 643625,
      rejected: 2,
      rows_per_second: 715,
      eta_seconds: 733,
    });
    expect(parseBuildProgress('reading input')).toBeUndefined();
  });
});
