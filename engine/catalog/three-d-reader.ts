/**
 * Reading a catalog's 3D sidecars into the scoring engine's contract: every array is a zero-copy
 * view of the bytes given (Arrow list children are single contiguous buffers per shard).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tableFromIPC, type Table } from 'apache-arrow';
import { CatalogError } from './errors.ts';
import type { Catalog } from './reader.ts';
import {
  CATALOG_3D_FORMAT,
  SIDECAR_METADATA_KEYS,
  sha256Bytes,
  type Embedding3d,
  type Molecule3d,
} from './three-d-schema.ts';
import { DESCRIPTOR_LENGTH } from '../shape/descriptors.ts';
import type { DescriptorTable } from '../shape/scan.ts';

/** One shard's 3D data: row i of the shard is row i here. */
export interface Shard3d {
  index: number;
  rows: number;
  embedding: Embedding3d;
  /** Conformers per row; 0 = no 3D model (see the rejects file). */
  confCounts: Uint8Array;
  atomCounts: Uint16Array;
  /** Row i's atoms are [atomOffsets[i], atomOffsets[i+1]) of `elements` and `charges`. */
  atomOffsets: Int32Array;
  /** Row i's coordinates are [coordOffsets[i], coordOffsets[i+1]) of `coords`. */
  coordOffsets: Int32Array;
  elements: Uint8Array;
  charges: Float32Array;
  coords: Float32Array;
  /** The first-stage table: 60 descriptor floats per conformer, conformer offsets per row. */
  table: DescriptorTable;
}

const NAMES = 'conf_count,atom_count,elements,charges,coords,usrcat';

/** Parses a sidecar; throws CatalogError when the format or the shard it belongs to differs. */
export function readSidecar(
  bytes: Uint8Array,
  index: number,
  shard?: { file: string; sha256: string },
): Shard3d {
  const bad = (code: 'catalog_format' | 'catalog_corrupt', why: string): never => {
    throw new CatalogError(code, `3D sidecar of shard ${index}: ${why}`);
  };
  let table: Table;
  try {
    table = tableFromIPC(bytes);
  } catch (err) {
    throw new CatalogError('catalog_corrupt', `3D sidecar of shard ${index}: not an Arrow IPC file`, {
      cause: err,
    });
  }
  const meta = table.schema.metadata;
  if (meta.get(SIDECAR_METADATA_KEYS.format) !== CATALOG_3D_FORMAT)
    bad('catalog_format', `format ${meta.get(SIDECAR_METADATA_KEYS.format)} is not ${CATALOG_3D_FORMAT}`);
  if (table.schema.fields.map((f) => f.name).join() !== NAMES) bad('catalog_format', 'unexpected columns');
  if (table.batches.length !== 1) bad('catalog_corrupt', `${table.batches.length} record batches`);
  if (shard) {
    const of = JSON.parse(meta.get(SIDECAR_METADATA_KEYS.shard) ?? '{}') as { sha256?: string };
    // A sidecar made for another version of the shard would pair rows with the wrong molecules.
    if (of.sha256 !== shard.sha256)
      bad('catalog_corrupt', `made for another ${shard.file} (checksum differs)`);
  }
  const batch = table.batches[0];
  const col = (name: string) => batch.getChild(name)!.data[0];
  const list = (name: string) => {
    const d = col(name);
    const offsets = (d.valueOffsets as Int32Array).subarray(d.offset, d.offset + d.length + 1);
    return { offsets, values: d.children[0].values as Uint8Array | Float32Array };
  };
  const el = list('elements');
  const ch = list('charges');
  const co = list('coords');
  const us = list('usrcat');
  const confOffsets = Uint32Array.from(us.offsets, (o) => (o - us.offsets[0]) / DESCRIPTOR_LENGTH);
  const descriptors = (us.values as Float32Array).subarray(us.offsets[0], us.offsets[us.offsets.length - 1]);
  const cc = col('conf_count');
  const ac = col('atom_count');
  return {
    index,
    rows: table.numRows,
    embedding: JSON.parse(meta.get(SIDECAR_METADATA_KEYS.embedding)!) as Embedding3d,
    confCounts: (cc.values as Uint8Array).subarray(cc.offset, cc.offset + cc.length),
    atomCounts: (ac.values as Uint16Array).subarray(ac.offset, ac.offset + ac.length),
    atomOffsets: el.offsets,
    coordOffsets: co.offsets,
    elements: el.values as Uint8Array,
    charges: ch.values as Float32Array,
    coords: co.values as Float32Array,
    table: { descriptors, offsets: confOffsets },
  };
}

/** Row `row` of a shard's 3D data in the contract (views, no copies), or null without a 3D model. */
export function molecule3d(s: Shard3d, row: number): Molecule3d | null {
  if (row < 0 || row >= s.rows) throw new RangeError(`row ${row} out of range 0..${s.rows - 1}`);
  const confCount = s.confCounts[row];
  if (confCount === 0) return null;
  const a0 = s.atomOffsets[row];
  const a1 = s.atomOffsets[row + 1];
  return {
    atomCount: s.atomCounts[row],
    confCount,
    elements: s.elements.subarray(a0, a1),
    charges: s.charges.subarray(a0, a1),
    coords: s.coords.subarray(s.coordOffsets[row], s.coordOffsets[row + 1]),
  };
}

/**
 * Loads shard `index`'s sidecar of a 3D-ready catalog from its directory, checking its SHA-256
 * against the manifest. Throws CatalogError('catalog_format') when the catalog has no 3D stage.
 */
export async function loadShard3d(catalog: Catalog, index: number): Promise<Shard3d> {
  const info = catalog.manifest.three_d;
  if (!info) throw new CatalogError('catalog_format', `catalog ${catalog.manifest.id} has no 3D data`);
  const entry = info.files[index];
  if (!entry) throw new RangeError(`shard ${index} out of range 0..${info.files.length - 1}`);
  const buf = await readFile(join(catalog.dir, entry.file));
  const bytes = new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
  if (sha256Bytes(bytes) !== entry.sha256)
    throw new CatalogError('catalog_corrupt', `${entry.file}: checksum differs from the manifest`);
  // One copy into shared memory: Arrow views buffers in place only at aligned offsets (readFile's
  // buffer may be pooled), and views of shared memory reach the shape pool's threads without a copy.
  const shared = new Uint8Array(new SharedArrayBuffer(bytes.byteLength));
  shared.set(bytes);
  return readSidecar(shared, index, catalog.manifest.shards[index]);
}
