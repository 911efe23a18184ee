/**
 * The file side of a catalog's 3D stage (the chem3d worker does the chemistry in between):
 * slice each shard's SMILES into part inputs, assemble the worker's part outputs into the
 * shard's sidecar, and finally record the result in the manifest. Every step is idempotent, so
 * a retried or restarted stage redoes nothing that is complete (docs/catalog-format.md).
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CatalogError } from './errors.ts';
import { openCatalog, readShard } from './reader.ts';
import { MANIFEST_FILE } from './schema.ts';
import { readPart3d } from './three-d-part.ts';
import {
  CATALOG_3D_FORMAT,
  SEARCH_TYPES_3D,
  encodeSidecar,
  sha256Bytes,
  sidecarFile,
  type Catalog3dInfo,
  type Embedding3d,
  type Molecule3d,
} from './three-d-schema.ts';

export const BUILD_3D_DIR = '.build-3d';
export const REJECTS_3D_FILE = 'rejects-3d.tsv';

const pad = (n: number, w: number) => String(n).padStart(w, '0');

async function writeAtomic(path: string, data: string | Uint8Array): Promise<void> {
  const tmp = `${path}.tmp-${process.pid}`;
  await writeFile(tmp, data);
  await rename(tmp, path);
}

async function loadShard(dir: string, index: number) {
  const catalog = await openCatalog(dir);
  const info = catalog.manifest.shards[index];
  if (!info) throw new RangeError(`shard ${index} out of range`);
  const buf = await readFile(catalog.shardPath(index));
  const shard = readShard(new Uint8Array(buf), index);
  return { catalog, info, shard };
}

export interface ShardPlan3d {
  rows: number;
  /** Absolute paths: SMILES file in, part file out, per slice of `partRows` rows. */
  parts: { inPath: string; outPath: string; rows: number }[];
}

/** Writes the SMILES inputs of shard `index`'s parts (those not yet written) and lists the parts. */
export async function planShard3d(dir: string, index: number, partRows: number): Promise<ShardPlan3d> {
  const { shard } = await loadShard(dir, index);
  const build = join(dir, BUILD_3D_DIR);
  await mkdir(build, { recursive: true });
  const smiles = shard.table.getChild('smiles')!;
  const parts: ShardPlan3d['parts'] = [];
  for (let start = 0, p = 0; start < shard.rows; start += partRows, p++) {
    const base = join(build, `shard-${pad(index, 5)}.part-${pad(p, 5)}`);
    const rows = Math.min(partRows, shard.rows - start);
    const part = { inPath: `${base}.smi`, outPath: `${base}.c3d`, rows };
    if (!existsSync(part.outPath) && !existsSync(part.inPath)) {
      const lines: string[] = [];
      for (let r = start; r < start + rows; r++) lines.push(String(smiles.get(r)));
      await writeAtomic(part.inPath, lines.join('\n') + '\n');
    }
    parts.push(part);
  }
  return { rows: shard.rows, parts };
}

export interface ShardResult3d {
  index: number;
  file: string;
  shard_file: string;
  rows: number;
  sha256: string;
  embedded: number;
  rejected: number;
  conformers: number;
  rdkit_version: string;
}

/**
 * Assembles shard `index`'s part outputs (in order) into its sidecar, and its 3D rejects into
 * `.build-3d/shard-NNNNN.rejects.tsv`. Throws CatalogError('catalog_build') when the parts do
 * not cover the shard's rows exactly.
 */
export async function assembleShard3d(
  dir: string,
  index: number,
  outPaths: string[],
  embedding: Omit<Embedding3d, 'rdkit_version'>,
): Promise<ShardResult3d> {
  const { info, shard } = await loadShard(dir, index);
  const molecules: (Molecule3d | null)[] = [];
  const rejects: string[] = [];
  let rdkit = '';
  for (const path of outPaths) {
    const part = readPart3d(new Uint8Array(await readFile(path)), path);
    rdkit ||= part.rdkitVersion;
    if (part.rdkitVersion !== rdkit)
      throw new CatalogError('catalog_build', `${path}: RDKit ${part.rdkitVersion}, other parts ${rdkit}`);
    part.reasons.forEach((reason, i) => {
      if (reason === null) return;
      const row = molecules.length + i;
      const id = shard.table.getChild('product_id')!.get(row);
      const smi = shard.table.getChild('smiles')!.get(row);
      rejects.push([index, row, id, smi, reason.replace(/[\t\n]/g, ' ')].join('\t'));
    });
    molecules.push(...part.molecules);
  }
  if (molecules.length !== shard.rows)
    throw new CatalogError(
      'catalog_build',
      `shard ${index}: parts hold ${molecules.length} of ${shard.rows} rows`,
    );
  const bytes = encodeSidecar(molecules, { ...embedding, rdkit_version: rdkit }, info);
  const file = sidecarFile(info.file);
  await writeAtomic(join(dir, file), bytes);
  await writeAtomic(join(dir, BUILD_3D_DIR, `shard-${pad(index, 5)}.rejects.tsv`), rejects.join('\n'));
  return {
    index,
    file,
    shard_file: info.file,
    rows: shard.rows,
    sha256: sha256Bytes(bytes),
    embedded: shard.rows - rejects.length,
    rejected: rejects.length,
    conformers: molecules.reduce((n, m) => n + (m?.confCount ?? 0), 0),
    rdkit_version: rdkit,
  };
}

/**
 * Completes the stage: writes `rejects-3d.tsv`, adds `three_d` and the 3D search types to the
 * manifest (atomically; the shards are untouched) and removes `.build-3d`.
 */
export async function finishCatalog3d(
  dir: string,
  embedding: Omit<Embedding3d, 'rdkit_version'>,
  shards: ShardResult3d[],
): Promise<Catalog3dInfo> {
  const catalog = await openCatalog(dir);
  const m = catalog.manifest;
  if (shards.length !== m.shards.length)
    throw new CatalogError('catalog_build', `3D stage covers ${shards.length} of ${m.shards.length} shards`);
  const header = ['shard', 'row', 'product_id', 'smiles', 'reason'].join('\t');
  const rejects = [header];
  for (const s of shards) {
    const text = await readFile(join(dir, BUILD_3D_DIR, `shard-${pad(s.index, 5)}.rejects.tsv`), 'utf8');
    if (text) rejects.push(text);
  }
  await writeAtomic(join(dir, REJECTS_3D_FILE), rejects.join('\n') + '\n');
  const sum = (k: 'rows' | 'embedded' | 'rejected' | 'conformers') => shards.reduce((n, s) => n + s[k], 0);
  const info: Catalog3dInfo = {
    format: CATALOG_3D_FORMAT,
    embedding: { ...embedding, rdkit_version: shards[0]?.rdkit_version ?? '' },
    created_at: new Date().toISOString(),
    counts: {
      molecules: sum('rows'),
      embedded: sum('embedded'),
      rejected: sum('rejected'),
      conformers: sum('conformers'),
    },
    rejects_file: REJECTS_3D_FILE,
    files: shards.map((s) => ({ file: s.file, shard_file: s.shard_file, rows: s.rows, sha256: s.sha256 })),
  };
  const manifest = { ...m, search_types: ['morgan', ...SEARCH_TYPES_3D], three_d: info };
  await writeAtomic(join(dir, MANIFEST_FILE), JSON.stringify(manifest, null, 2) + '\n');
  await rm(join(dir, BUILD_3D_DIR), { recursive: true, force: true });
  return info;
}
