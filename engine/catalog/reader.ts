/**
 * Reading catalogs: the manifest (validated) and shards parsed from any bytes, including views
 * into SharedArrayBuffer or WebAssembly memory, with the fingerprint and popcount columns exposed
 * as zero-copy typed-array views.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tableFromIPC, type Table } from 'apache-arrow';
import { FP_BYTES, MORGAN_FP } from '../chem/fingerprint.ts';
import { CatalogError } from './errors.ts';
import {
  CATALOG_FORMAT,
  COLUMNS,
  COLUMNS_WITHOUT_OOD,
  MANIFEST_FILE,
  SCHEMA_METADATA_KEYS,
  type CatalogManifest,
} from './schema.ts';

export type { CatalogManifest, ShardInfo, ColumnSpec } from './schema.ts';

export interface ShardData {
  index: number;
  rows: number;
  /** rows * 256 bytes, a view into the bytes given to readShard. */
  fingerprints: Uint8Array;
  /** A view into the bytes given to readShard. */
  popcounts: Uint16Array;
  table: Table;
}

export interface Catalog {
  dir: string;
  manifest: CatalogManifest;
  shardPath(i: number): string;
}

function fail(dir: string, msg: string): never {
  throw new CatalogError('catalog_format', `catalog ${dir}: ${msg}`);
}

/** Checks a parsed manifest against this format version; throws CatalogError('catalog_format'). */
export function validateManifest(m: unknown, dir: string): CatalogManifest {
  if (!m || typeof m !== 'object') fail(dir, 'manifest is not an object');
  const x = m as Partial<CatalogManifest>;
  if (x.format !== CATALOG_FORMAT) fail(dir, `format ${JSON.stringify(x.format)} is not ${CATALOG_FORMAT}`);
  for (const k of ['id', 'name', 'vendor', 'release', 'created_at'] as const)
    if (typeof x[k] !== 'string') fail(dir, `${k} missing`);
  const fp = x.fingerprint;
  if (!fp || fp.kind !== MORGAN_FP.kind || fp.radius !== MORGAN_FP.radius || fp.nBits !== MORGAN_FP.nBits) {
    fail(
      dir,
      `fingerprint ${JSON.stringify(fp)} is not morgan r=${MORGAN_FP.radius} ${MORGAN_FP.nBits} bits`,
    );
  }
  if (!Array.isArray(x.shards)) fail(dir, 'shards missing');
  for (const s of x.shards) {
    if (typeof s.file !== 'string' || !/^[\w.-]+$/.test(s.file) || !Number.isInteger(s.rows))
      fail(dir, `bad shard entry ${JSON.stringify(s)}`);
  }
  if (!x.counts || !Number.isInteger(x.counts.molecules)) fail(dir, 'counts missing');
  return x as CatalogManifest;
}

/** Reads and validates DIR/manifest.json. Throws CatalogError ('catalog_not_found' or 'catalog_format'). */
export async function openCatalog(dir: string): Promise<Catalog> {
  let text: string;
  try {
    text = await readFile(join(dir, MANIFEST_FILE), 'utf8');
  } catch (err) {
    throw new CatalogError('catalog_not_found', `no catalog manifest in ${dir}`, { cause: err });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new CatalogError('catalog_format', `catalog ${dir}: manifest is not JSON`, { cause: err });
  }
  const manifest = validateManifest(parsed, dir);
  return { dir, manifest, shardPath: (i: number) => join(dir, manifest.shards[i].file) };
}

/** Every direct subdirectory (or link to one) of rootDir holding a valid catalog, sorted by id. Invalid ones are skipped. */
export async function listCatalogs(rootDir: string): Promise<Catalog[]> {
  let entries;
  try {
    entries = await readdir(rootDir, { withFileTypes: true });
  } catch {
    return [];
  }
  const out: Catalog[] = [];
  for (const e of entries) {
    // Symbolic links count: big catalogs often live on another disk and are linked in.
    if (!e.isDirectory() && !e.isSymbolicLink()) continue;
    try {
      out.push(await openCatalog(join(rootDir, e.name)));
    } catch {
      // not a catalog (or a half-written one): skip
    }
  }
  return out.sort((a, b) => a.manifest.id.localeCompare(b.manifest.id));
}

/**
 * Parses one shard (an Arrow IPC file of exactly one record batch) from bytes anywhere in memory.
 * `fingerprints` and `popcounts` are views of `bytes.buffer`, never copies; throws
 * CatalogError('catalog_corrupt') when the bytes do not parse, the schema or format differs, or
 * the popcount column is not 2-byte aligned in memory (pass bytes starting at an aligned address).
 */
export function readShard(bytes: Uint8Array, index: number): ShardData {
  let table: Table;
  try {
    table = tableFromIPC(bytes);
  } catch (err) {
    throw new CatalogError('catalog_corrupt', `shard ${index}: not an Arrow IPC file`, { cause: err });
  }
  if (table.schema.fields.length === 0)
    throw new CatalogError('catalog_corrupt', `shard ${index}: not an Arrow IPC file with a schema`);
  const meta = table.schema.metadata;
  if (meta.get(SCHEMA_METADATA_KEYS.format) !== CATALOG_FORMAT) {
    throw new CatalogError(
      'catalog_format',
      `shard ${index}: format ${meta.get(SCHEMA_METADATA_KEYS.format)} is not ${CATALOG_FORMAT}`,
    );
  }
  const names = table.schema.fields.map((f) => f.name);
  const got = names.join();
  if (got !== COLUMNS.map((c) => c.name).join() && got !== COLUMNS_WITHOUT_OOD.map((c) => c.name).join())
    throw new CatalogError('catalog_format', `shard ${index}: unexpected columns`);
  if (table.batches.length !== 1)
    throw new CatalogError(
      'catalog_corrupt',
      `shard ${index}: ${table.batches.length} record batches, expected 1`,
    );
  const rows = table.numRows;
  const fpData = table.batches[0].getChild('fp')!.data[0];
  const pcData = table.batches[0].getChild('popcount')!.data[0];
  const fpValues = fpData.values as Uint8Array;
  const pcValues = pcData.values as Uint16Array;
  if (fpValues.buffer !== bytes.buffer || pcValues.buffer !== bytes.buffer) {
    // Arrow copies a column it cannot view in place, which happens when the popcount buffer sits
    // at an odd address: the caller's bytes were not 8-byte aligned.
    throw new CatalogError(
      'catalog_corrupt',
      `shard ${index}: column buffers are not aligned in memory (bytes.byteOffset=${bytes.byteOffset}); load shards at an 8-byte aligned offset`,
    );
  }
  const fingerprints = fpValues.subarray(fpData.offset * FP_BYTES, (fpData.offset + rows) * FP_BYTES);
  const popcounts = pcValues.subarray(pcData.offset, pcData.offset + rows);
  return { index, rows, fingerprints, popcounts, table };
}

const hex = (b: Uint8Array): string => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');

/**
 * One row as a plain record: the given columns (default: every column except `fp`), strings and
 * numbers, null for missing values; `fp` (when asked for) as hex.
 */
export function rowRecord(
  shard: ShardData,
  row: number,
  columns?: readonly string[],
): Record<string, string | number | null> {
  if (row < 0 || row >= shard.rows) throw new RangeError(`row ${row} out of range 0..${shard.rows - 1}`);
  const out: Record<string, string | number | null> = {};
  // By default every stored column but `fp` (a catalog from before `admet_ood` simply lacks it).
  for (const name of columns ??
    COLUMNS.filter((c) => c.name !== 'fp' && shard.table.getChild(c.name)).map((c) => c.name)) {
    if (name === 'fp') {
      out.fp = hex(shard.fingerprints.subarray(row * FP_BYTES, (row + 1) * FP_BYTES));
      continue;
    }
    const col = shard.table.getChild(name);
    if (!col) throw new RangeError(`unknown column ${name}`);
    const v = col.get(row) as string | number | null;
    out[name] = v === null || v === undefined || (typeof v === 'number' && Number.isNaN(v)) ? null : v;
  }
  return out;
}
