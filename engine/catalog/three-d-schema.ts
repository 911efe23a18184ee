/**
 * The catalog's 3D sidecar format (`molsearch-catalog-3d/1`, docs/catalog-format.md): one file
 * `shard-NNNNN.3d.arrow` per shard, row-aligned with it (row i of the sidecar is row i of the
 * shard), holding each molecule's conformers and charges in the data contract of engine/shape.
 */
import { createHash } from 'node:crypto';
import {
  Field,
  Float32,
  List,
  makeData,
  RecordBatch,
  Schema,
  Struct,
  Table,
  tableToIPC,
  Uint16,
  Uint8,
} from 'apache-arrow';
import { describeConformers, DESCRIPTOR_LENGTH } from '../shape/descriptors.ts';

export const CATALOG_3D_FORMAT = 'molsearch-catalog-3d/1';

/**
 * One molecule in 3D, the contract of the scoring engine: atoms of the largest fragment with
 * hydrogens, `coords` conformer-major (conformer c, atom a, axis k at `(c * atomCount + a) * 3 + k`).
 */
export interface Molecule3d {
  atomCount: number;
  confCount: number;
  /** Atomic numbers, hydrogens included. */
  elements: Uint8Array;
  /** Gasteiger partial charges. */
  charges: Float32Array;
  coords: Float32Array;
}

/** How the conformers were made: stored in the manifest and in each sidecar's schema metadata. */
export interface Embedding3d {
  method: 'ETKDGv3';
  /** Conformers asked for; fewer are stored when pruning drops near-duplicates. */
  confs: number;
  /** Heavy-atom RMSD (Å) below which a conformer is dropped as a duplicate. */
  prune_rms: number;
  seed: number;
  mmff: boolean;
  charges: 'gasteiger';
  fragment: 'largest';
  rdkit_version: string;
}

/** The search types a catalog with 3D sidecars serves (besides `morgan`). */
export const SEARCH_TYPES_3D = ['espsim_shape', 'espsim_electrostatic'] as const;

/** The manifest's `three_d` section, written when the 3D stage completes. */
export interface Catalog3dInfo {
  format: typeof CATALOG_3D_FORMAT;
  embedding: Embedding3d;
  created_at: string;
  counts: { molecules: number; embedded: number; rejected: number; conformers: number };
  /** Rows without a 3D model: `shard<TAB>row<TAB>product_id<TAB>smiles<TAB>reason`. */
  rejects_file: string;
  /** One sidecar per shard, in shard order. */
  files: { file: string; shard_file: string; rows: number; sha256: string }[];
}

/** What a manifest says it serves: `search_types`, or `morgan` alone for catalogs older than it. */
export function servedSearchTypes(m: { search_types?: string[] }): string[] {
  return m.search_types ?? ['morgan'];
}

export const SIDECAR_METADATA_KEYS = {
  format: 'molsearch.format',
  embedding: 'molsearch.3d_embedding',
  /** The shard file this sidecar is row-aligned with, and its SHA-256. */
  shard: 'molsearch.3d_shard',
} as const;

/** The sidecar file of a shard file: shard-00000.arrow → shard-00000.3d.arrow. */
export function sidecarFile(shardFile: string): string {
  return shardFile.replace(/\.arrow$/, '.3d.arrow');
}

const list = (child: Uint8 | Float32) => new List(new Field('item', child, false));

export function sidecarSchema(embedding: Embedding3d, shard: { file: string; sha256: string }): Schema {
  const metadata = new Map<string, string>([
    [SIDECAR_METADATA_KEYS.format, CATALOG_3D_FORMAT],
    [SIDECAR_METADATA_KEYS.embedding, JSON.stringify(embedding)],
    [SIDECAR_METADATA_KEYS.shard, JSON.stringify(shard)],
  ]);
  return new Schema(
    [
      // 0 = no 3D model for this row (its reason is in rejects-3d.tsv); it stays searchable by morgan.
      new Field('conf_count', new Uint8(), false),
      new Field('atom_count', new Uint16(), false),
      new Field('elements', list(new Uint8()), false),
      new Field('charges', list(new Float32()), false),
      new Field('coords', list(new Float32()), false),
      // First-stage shape descriptors of each conformer (engine/shape/descriptors.ts), 60 floats each.
      new Field('usrcat', list(new Float32()), false),
    ],
    metadata,
  );
}

/** Encodes a shard's molecules (null = not embedded) as one Arrow IPC file, one record batch. */
export function encodeSidecar(
  molecules: readonly (Molecule3d | null)[],
  embedding: Embedding3d,
  shard: { file: string; sha256: string },
): Uint8Array {
  const schema = sidecarSchema(embedding, shard);
  const n = molecules.length;
  const confCount = new Uint8Array(n);
  const atomCount = new Uint16Array(n);
  const atomOff = new Int32Array(n + 1);
  const coordOff = new Int32Array(n + 1);
  const descOff = new Int32Array(n + 1);
  molecules.forEach((m, i) => {
    confCount[i] = m?.confCount ?? 0;
    atomCount[i] = m?.atomCount ?? 0;
    atomOff[i + 1] = atomOff[i] + (m?.atomCount ?? 0);
    coordOff[i + 1] = coordOff[i] + (m ? m.coords.length : 0);
    descOff[i + 1] = descOff[i] + (m?.confCount ?? 0) * DESCRIPTOR_LENGTH;
  });
  const usrcat = new Float32Array(descOff[n]);
  const elements = new Uint8Array(atomOff[n]);
  const charges = new Float32Array(atomOff[n]);
  const coords = new Float32Array(coordOff[n]);
  molecules.forEach((m, i) => {
    if (!m) return;
    if (m.elements.length !== m.atomCount || m.coords.length !== m.confCount * m.atomCount * 3)
      throw new Error(`row ${i}: arrays do not match atomCount ${m.atomCount} × confCount ${m.confCount}`);
    elements.set(m.elements, atomOff[i]);
    charges.set(m.charges, atomOff[i]);
    coords.set(m.coords, coordOff[i]);
    usrcat.set(describeConformers(m), descOff[i]);
  });
  const f = (i: number) => schema.fields[i].type;
  const listData = (type: List, offsets: Int32Array, values: Uint8Array | Float32Array) =>
    makeData({
      type,
      length: n,
      nullCount: 0,
      valueOffsets: offsets,
      child: makeData({ type: type.children[0].type, length: values.length, data: values } as never),
    });
  const children = [
    makeData({ type: f(0), length: n, data: confCount } as never),
    makeData({ type: f(1), length: n, data: atomCount } as never),
    listData(f(2), atomOff, elements),
    listData(f(3), atomOff, charges),
    listData(f(4), coordOff, coords),
    listData(f(5), descOff, usrcat),
  ];
  const data = makeData({ type: new Struct(schema.fields), length: n, nullCount: 0, children });
  return tableToIPC(new Table(schema, [new RecordBatch(schema, data)]), 'file');
}

/** Decodes a molecule the chem3d worker sent (base64 of little-endian arrays) into the contract. */
export function moleculeFromBase64(w: {
  atomCount: number;
  confCount: number;
  elements: string;
  charges: string;
  coords: string;
}): Molecule3d {
  // Copies into fresh buffers: Buffer.from may return a pooled slice at an odd offset.
  const bytes = (b64: string) => new Uint8Array(Buffer.from(b64, 'base64'));
  const elements = bytes(w.elements);
  const charges = new Float32Array(bytes(w.charges).buffer);
  const coords = new Float32Array(bytes(w.coords).buffer);
  if (
    elements.length !== w.atomCount ||
    charges.length !== w.atomCount ||
    coords.length !== w.confCount * w.atomCount * 3
  )
    throw new Error(`3D molecule arrays do not match ${w.atomCount} atoms × ${w.confCount} conformers`);
  return { atomCount: w.atomCount, confCount: w.confCount, elements, charges, coords };
}

/** The inverse of moleculeFromBase64: a molecule as the chem3d worker sends it (e.g. into a workflow's input). */
export function moleculeToBase64(m: Molecule3d): {
  ok: true;
  atomCount: number;
  confCount: number;
  elements: string;
  charges: string;
  coords: string;
} {
  const b64 = (a: Uint8Array | Float32Array) =>
    Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString('base64');
  return {
    ok: true,
    atomCount: m.atomCount,
    confCount: m.confCount,
    elements: b64(m.elements),
    charges: b64(m.charges),
    coords: b64(m.coords),
  };
}

export function sha256Bytes(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}
