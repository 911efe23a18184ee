/**
 * The job result file: one Arrow IPC file per legacy job, rows sorted by similarity (desc) and
 * unique by id, with the 33 property columns of the spec's property-range table (22 ADMET, then 11
 * descriptors; null where a catalog has no prediction). Declared once here; readers reject others.
 */
import {
  Field,
  Float64,
  makeData,
  makeVector,
  RecordBatch,
  Schema,
  Struct,
  Table,
  tableFromIPC,
  tableToIPC,
  Utf8,
  type Vector,
} from 'apache-arrow';
import { DESCRIPTOR_NAMES } from '../chem/descriptors.ts';
import { ADMET_NAMES } from '../catalog/schema.ts';
import { decode3dColumns, encode3dColumns, type JobResult3d } from './job-result-3d.ts';

export const JOB_RESULT_FORMAT = 'molsearch-job-result/1';

/** The 33 property keys in the order of interface.md's property-range table. */
export const PROPERTY_KEYS = [...ADMET_NAMES, ...DESCRIPTOR_NAMES] as readonly string[];

/** Leading columns of every result, in file and page order. */
export const BASE_COLUMNS = ['smiles', 'id', 'database', 'db_id', 'similarity'] as const;

/** A decoded result: parallel columns; properties hold NaN where the value is null. */
export interface JobResult {
  rows: number;
  smiles: string[];
  id: string[];
  database: string[];
  dbId: string[];
  similarity: Float64Array;
  /** PROPERTY_KEYS[i] → column i. */
  props: Float64Array[];
  /**
   * Synthon-space results only (optional columns `reaction_id`, `synthons`): the product's
   * reaction, and its synthons as JSON text `[{"slot","synthon_id","smiles"}]` ('' for none).
   */
  synthon?: { reactionId: string[]; synthons: string[] };
  metadata: Record<string, string>;
  /** espsim jobs only: the 3D scores and aligned conformers (job-result-3d.ts). */
  threeD?: JobResult3d;
}

/** An empty result with room for `rows` rows (property columns filled with NaN). */
export function allocJobResult(rows: number): JobResult {
  return {
    rows,
    smiles: new Array<string>(rows),
    id: new Array<string>(rows),
    database: new Array<string>(rows),
    dbId: new Array<string>(rows),
    similarity: new Float64Array(rows),
    props: PROPERTY_KEYS.map(() => new Float64Array(rows).fill(NaN)),
    metadata: {},
  };
}

/** A Utf8 vector built in one pass (one joined buffer and offsets), much faster than a builder. */
function utf8Vector(values: string[]): Vector {
  const n = values.length;
  const offsets = new Int32Array(n + 1);
  const joined = values.join('');
  const buf = Buffer.from(joined, 'utf8');
  if (buf.length === joined.length) {
    for (let i = 0; i < n; i++) offsets[i + 1] = offsets[i] + values[i].length;
  } else {
    for (let i = 0; i < n; i++) offsets[i + 1] = offsets[i] + Buffer.byteLength(values[i], 'utf8');
  }
  const data = new Uint8Array(buf.buffer, buf.byteOffset, buf.length);
  return makeVector(makeData({ type: new Utf8(), length: n, nullCount: 0, valueOffsets: offsets, data }));
}

function nullableFloat(values: Float64Array): Vector {
  const n = values.length;
  const bitmap = new Uint8Array((n + 7) >> 3);
  let nulls = 0;
  for (let i = 0; i < n; i++) {
    if (Number.isNaN(values[i])) nulls++;
    else bitmap[i >> 3] |= 1 << (i & 7);
  }
  return makeVector(
    makeData({
      type: new Float64(),
      length: n,
      nullCount: nulls,
      nullBitmap: nulls ? bitmap : null,
      data: values,
    }),
  );
}

/** Encodes a result as an Arrow IPC file (bytes to put in the object store). */
export function encodeJobResult(r: JobResult): Uint8Array {
  const fields: Field[] = [
    new Field('smiles', new Utf8(), false),
    new Field('id', new Utf8(), false),
    new Field('database', new Utf8(), false),
    new Field('db_id', new Utf8(), false),
    new Field('similarity', new Float64(), false),
    ...PROPERTY_KEYS.map((k) => new Field(k, new Float64(), true)),
  ];
  const extra = r.threeD ? encode3dColumns(r.threeD) : { fields: [], vectors: [] };
  fields.push(...extra.fields);
  if (r.synthon)
    fields.push(new Field('reaction_id', new Utf8(), false), new Field('synthons', new Utf8(), false));
  const metadata = new Map(Object.entries({ ...r.metadata, 'molsearch.format': JOB_RESULT_FORMAT }));
  const schema = new Schema(fields, metadata);
  const columns: Vector[] = [
    utf8Vector(r.smiles),
    utf8Vector(r.id),
    utf8Vector(r.database),
    utf8Vector(r.dbId),
    makeVector(r.similarity),
    ...r.props.map(nullableFloat),
    ...extra.vectors,
  ];
  if (r.synthon) columns.push(utf8Vector(r.synthon.reactionId), utf8Vector(r.synthon.synthons));
  const children = columns.map((v) => (v.data.length === 1 ? v.data[0] : makeVector(v.toArray()).data[0]));
  const batch = new RecordBatch(
    schema,
    makeData({ type: new Struct(fields), length: r.rows, nullCount: 0, children }),
  );
  return tableToIPC(new Table(schema, [batch]), 'file');
}

function floats(v: Vector | null, rows: number): Float64Array {
  const out = new Float64Array(rows).fill(NaN);
  if (!v) return out;
  let o = 0;
  for (const d of v.data) {
    const values = d.values as Float64Array;
    const bitmap = d.nullBitmap;
    // No nulls: one block copy instead of a bitmap test per value.
    if (!bitmap || d.nullCount === 0) {
      out.set(values.subarray(d.offset, d.offset + d.length), o);
      o += d.length;
      continue;
    }
    for (let i = 0; i < d.length; i++) {
      const valid = (bitmap[(d.offset + i) >> 3] >> ((d.offset + i) & 7)) & 1;
      out[o + i] = valid ? values[d.offset + i] : NaN;
    }
    o += d.length;
  }
  return out;
}

/** Decodes a Utf8 column: one decode of the whole value buffer, then slices (ASCII fast path). */
function strings(v: Vector | null): string[] {
  if (!v) throw new Error('job result lacks a string column');
  const out: string[] = [];
  for (const d of v.data) {
    const offsets = d.valueOffsets as Int32Array;
    const bytes = d.values as Uint8Array;
    const start = offsets[d.offset];
    const end = offsets[d.offset + d.length];
    const buf = Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start);
    const text = buf.toString('utf8');
    if (text.length === buf.length) {
      for (let i = 0; i < d.length; i++)
        out.push(text.slice(offsets[d.offset + i] - start, offsets[d.offset + i + 1] - start));
    } else {
      for (let i = 0; i < d.length; i++)
        out.push(buf.toString('utf8', offsets[d.offset + i] - start, offsets[d.offset + i + 1] - start));
    }
  }
  return out;
}

/**
 * Decodes a job result file; throws when the bytes are not a result of this format. The aligned
 * conformers of a 3D result are decoded only when asked (SDF export): paging never needs them.
 */
export function decodeJobResult(bytes: Uint8Array, opts: { conformers?: boolean } = {}): JobResult {
  const table = tableFromIPC(bytes);
  const format = table.schema.metadata.get('molsearch.format');
  if (format !== JOB_RESULT_FORMAT) throw new Error(`not a job result file (format ${format ?? 'missing'})`);
  const rows = table.numRows;
  return {
    rows,
    smiles: strings(table.getChild('smiles')),
    id: strings(table.getChild('id')),
    database: strings(table.getChild('database')),
    dbId: strings(table.getChild('db_id')),
    similarity: floats(table.getChild('similarity'), rows),
    props: PROPERTY_KEYS.map((k) => floats(table.getChild(k), rows)),
    ...(table.getChild('reaction_id')
      ? {
          synthon: {
            reactionId: strings(table.getChild('reaction_id')),
            synthons: strings(table.getChild('synthons')),
          },
        }
      : {}),
    metadata: Object.fromEntries(table.schema.metadata),
    threeD: decode3dColumns(table, opts.conformers ?? false),
  };
}
