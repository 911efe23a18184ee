import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBundledCatalogs } from '../../../engine/catalog/bundled.ts';
import { admetModelVersion } from '../../../engine/catalog/builder/build-catalog.ts';

// A repo root of its own with one tiny bundled catalog, so the real bundled list is not built here.
let root: string;
const catalogDir = (): string => join(root, 'built');
const manifestPath = (): string => join(catalogDir(), 'tiny', 'manifest.json');

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'bundled-'));
  await mkdir(join(root, 'catalogs', 'sources'), { recursive: true });
  await writeFile(
    join(root, 'catalogs', 'sources', 'tiny.csv'),
    'smiles,id\nCCO,T1\nc1ccccc1O,T2\nCC(=O)Nc1ccc(O)cc1,T3\n',
  );
  const entry = {
    id: 'tiny',
    name: 'Tiny',
    vendor: 'Test',
    website: 'https://example.org',
    contact: 'https://example.org',
    release: '2026',
    license: 'CC0',
    origin: 'a test of the bundled list',
    source: 'sources/tiny.csv',
    smiles_col: 'smiles',
    id_col: 'id',
  };
  await writeFile(join(root, 'catalogs', 'bundled.json'), JSON.stringify({ catalogs: [entry] }));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('ensureBundledCatalogs', () => {
  it('builds a missing bundled catalog with predictions of the committed models', async () => {
    expect(await ensureBundledCatalogs({ catalogDir: catalogDir(), repoRoot: root, threads: 1 })).toEqual([
      'tiny',
    ]);
    const m = JSON.parse(await readFile(manifestPath(), 'utf8')) as {
      models: Record<string, string>;
      counts: { molecules: number };
    };
    expect(m.counts.molecules).toBe(3);
    expect(new Set(Object.values(m.models))).toEqual(new Set([await admetModelVersion()]));
    expect(m).toMatchObject({ license: 'CC0', source: 'a test of the bundled list' });
  });

  it('adds the licence and origin to a catalog built before the manifest held them', async () => {
    const m = JSON.parse(await readFile(manifestPath(), 'utf8')) as Record<string, unknown>;
    delete m.license;
    delete m.source;
    await writeFile(manifestPath(), JSON.stringify(m));
    // Not rebuilt: only the manifest gains the two fields.
    expect(await ensureBundledCatalogs({ catalogDir: catalogDir(), repoRoot: root, threads: 1 })).toEqual([]);
    const after = JSON.parse(await readFile(manifestPath(), 'utf8')) as Record<string, unknown>;
    expect(after).toEqual({ ...m, license: 'CC0', source: 'a test of the bundled list' });
  });

  it('leaves a valid catalog of the current models alone', async () => {
    expect(await ensureBundledCatalogs({ catalogDir: catalogDir(), repoRoot: root, threads: 1 })).toEqual([]);
  });

  it('rebuilds a catalog whose stored predictions come from other model versions', async () => {
    const m = JSON.parse(await readFile(manifestPath(), 'utf8')) as { models: Record<string, string> };
    for (const k of Object.keys(m.models)) m.models[k] = 'admet-lgbm-0.9.0';
    await writeFile(manifestPath(), JSON.stringify(m));
    expect(await ensureBundledCatalogs({ catalogDir: catalogDir(), repoRoot: root, threads: 1 })).toEqual([
      'tiny',
    ]);
    const after = JSON.parse(await readFile(manifestPath(), 'utf8')) as { models: Record<string, string> };
    expect(new Set(Object.values(after.models))).toEqual(new Set([await admetModelVersion()]));
  });
});
