/**
 * The 3D columns of a job result (espsim jobs): both scores at the best shape alignment, the query
 * conformer each hit was aligned onto, and the hit's conformer after alignment (atomic numbers and
 * float32 coordinates as raw little-endian bytes). The query's conformers travel in the file's
 * metadata (`molsearch.query3d`), so an SDF can show the query beside its hits.
 */
import { Binary, Field, Float64, Int32, makeData, makeVector, type Table, type Vector } from 'apache-arrow';

export const SCORE_COLUMNS_3D = ['Shapesim', 'Espsim'] as const;
export const METADATA_QUERY_3D = 'molsearch.query3d';

export interface JobResult3d {
  shape: Float64Array;
  esp: Float64Array;
  /** Index of the query conformer the hit is aligned onto. */
  queryConf: Int32Array;
  /** Per row: atomic numbers and aligned coordinates (absent when decoded without conformers). */
  elements?: Uint8Array[];
  coords?: Float32Array[];
}

/** The query's conformers as stored in the metadata: base64 of uint8 elements and float32 coordinates. */
export interface Query3dMetadata {
  smiles: string;
  atomCount: number;
  confCount: number;
  elements: string;
  coords: string;
}

function binaryVector(values: Uint8Array[]): Vector {
  const offsets = new Int32Array(values.length + 1);
  for (let i = 0; i < values.length; i++) offsets[i + 1] = offsets[i] + values[i].byteLength;
  const data = new Uint8Array(offsets[values.length]);
  values.forEach((v, i) => data.set(v, offsets[i]));
  return makeVector(
    makeData({ type: new Binary(), length: values.length, nullCount: 0, valueOffsets: offsets, data }),
  );
}

const bytesOf = (a: Float32Array | Uint8Array) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

/** Fields and vectors of the 3D columns, appended after the base and property columns. */
export function encode3dColumns(t: JobResult3d): { fields: Field[]; vectors: Vector[] } {
  const fields: Field[] = [
    new Field('Shapesim', new Float64(), false),
    new Field('Espsim', new Float64(), false),
    new Field('query_conformer', new Int32(), false),
  ];
  const vectors: Vector[] = [makeVector(t.shape), makeVector(t.esp), makeVector(t.queryConf)];
  if (t.elements && t.coords) {
    fields.push(new Field('elements_3d', new Binary(), false), new Field('coords_3d', new Binary(), false));
    vectors.push(binaryVector(t.elements), binaryVector(t.coords.map(bytesOf)));
  }
  return { fields, vectors };
}

function numbers<T extends Float64Array | Int32Array>(v: Vector, out: T): T {
  let o = 0;
  for (const d of v.data) {
    out.set((d.values as T).subarray(d.offset, d.offset + d.length), o);
    o += d.length;
  }
  return out;
}

function binaries(v: Vector): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (const d of v.data) {
    const offsets = d.valueOffsets as Int32Array;
    const values = d.values as Uint8Array;
    // Copies: the result outlives the file's bytes, and float32 views need aligned offsets.
    for (let i = 0; i < d.length; i++)
      out.push(values.slice(offsets[d.offset + i], offsets[d.offset + i + 1]));
  }
  return out;
}

/** The 3D columns of a decoded table, or undefined for a Morgan result. */
export function decode3dColumns(table: Table, conformers: boolean): JobResult3d | undefined {
  const shape = table.getChild('Shapesim');
  if (!shape) return undefined;
  const rows = table.numRows;
  const out: JobResult3d = {
    shape: numbers(shape, new Float64Array(rows)),
    esp: numbers(table.getChild('Espsim')!, new Float64Array(rows)),
    queryConf: numbers(table.getChild('query_conformer')!, new Int32Array(rows)),
  };
  const el = table.getChild('elements_3d');
  const co = table.getChild('coords_3d');
  if (conformers && el && co) {
    out.elements = binaries(el);
    out.coords = binaries(co).map((b) => new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4));
  }
  return out;
}
