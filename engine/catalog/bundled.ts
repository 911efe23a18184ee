/**
 * The sample catalogs shipped in the repo (catalogs/bundled.json + catalogs/sources/): built on
 * first start into the service's catalog directory.
 */
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { openCatalog } from './reader.ts';
import { MANIFEST_FILE, type CatalogManifest, type CatalogMeta } from './schema.ts';
import { admetModelVersion, buildCatalog } from './builder/build-catalog.ts';

export interface BundledCatalog extends Omit<CatalogMeta, 'source'> {
  /** Path relative to catalogs/. */
  source: string;
  /** Where the data comes from (the manifest's `source`, shown by `/license_information`). */
  origin?: string;
  smiles_col: string;
  id_col: string;
  selection?: string;
  /**
   * The 3D stage at start (bin/chem3d.ts): `start` = awaited before serving (small catalogs),
   * `background` = runs while the service serves `morgan`, `off` (default) = none.
   */
  three_d?: 'start' | 'background' | 'off';
}

/** Reads catalogs/bundled.json under repoRoot. */
export async function readBundledList(repoRoot: string): Promise<BundledCatalog[]> {
  const doc = JSON.parse(await readFile(join(repoRoot, 'catalogs', 'bundled.json'), 'utf8')) as {
    catalogs: BundledCatalog[];
  };
  return doc.catalogs;
}

export interface EnsureBundledOptions {
  catalogDir: string;
  repoRoot: string;
  log?: { info(obj: object, msg?: string): void };
  threads?: number;
  /** Only these ids (default: all bundled). */
  only?: readonly string[];
  progress?: boolean;
  /** Predict the ADMET columns at build time (default true). */
  admet?: boolean;
}

/**
 * Builds every bundled catalog that catalogDir/<id> does not hold as a valid catalog (an
 * interrupted earlier build resumes) or holds with predictions of other ADMET models. Returns the ids it built.
 */
export async function ensureBundledCatalogs(opts: EnsureBundledOptions): Promise<string[]> {
  const built: string[] = [];
  const modelVersion = await admetModelVersion();
  for (const c of await readBundledList(opts.repoRoot)) {
    if (opts.only && !opts.only.includes(c.id)) continue;
    const dir = join(opts.catalogDir, c.id);
    try {
      const have = await openCatalog(dir);
      // A catalog whose stored predictions come from older ADMET models is rebuilt, so an upgrade
      // never keeps serving the previous models' values.
      const stale =
        (opts.admet ?? true) && Object.values(have.manifest.models ?? {}).some((v) => v !== modelVersion);
      if (!stale) {
        await addAttribution(dir, have.manifest, c);
        continue;
      }
      opts.log?.info(
        { catalog: c.id, models: Object.values(have.manifest.models ?? {})[0], current: modelVersion },
        'ADMET models changed: rebuilding bundled catalog',
      );
    } catch {
      // missing or incomplete: build it
    }
    opts.log?.info({ catalog: c.id, dir }, 'building bundled catalog');
    const r = await buildCatalog({
      input: join(opts.repoRoot, 'catalogs', c.source),
      outDir: dir,
      id: c.id,
      name: c.name,
      vendor: c.vendor,
      website: c.website,
      contact: c.contact,
      release: c.release,
      license: c.license,
      source: c.origin,
      smilesCol: c.smiles_col,
      idCol: c.id_col,
      threads: opts.threads,
      progress: opts.progress,
      admet: opts.admet ?? true,
    });
    opts.log?.info(
      { catalog: c.id, molecules: r.manifest.counts.molecules, seconds: r.seconds },
      'built bundled catalog',
    );
    built.push(c.id);
  }
  return built;
}

/**
 * Writes the bundled entry's licence and origin into a catalog built before the manifest held
 * them (a rename, so a reader sees the old manifest or the new one, never half of one).
 */
async function addAttribution(dir: string, m: CatalogManifest, c: BundledCatalog): Promise<void> {
  if ((m.license ?? '') === (c.license ?? '') && (m.source ?? '') === (c.origin ?? '')) return;
  const next: CatalogManifest = { ...m, license: c.license, source: c.origin };
  const tmp = join(dir, `.${MANIFEST_FILE}.tmp`);
  await writeFile(tmp, `${JSON.stringify(next, null, 2)}\n`);
  await rename(tmp, join(dir, MANIFEST_FILE));
}
