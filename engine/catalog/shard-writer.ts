/**
 * Encodes one shard: a single Arrow record batch in the IPC *file* format, so every column's data
 * is one contiguous, 8-byte aligned buffer that readers can view without copying.
 */
import { createHash } from 'node:crypto';
import { makeData, RecordBatch, Struct, Table, tableToIPC, type Data } from 'apache-arrow';
import { DESCRIPTOR_NAMES } from '../chem/descriptors.ts';
import { FP_BYTES } from '../chem/fingerprint.ts';
import { ADMET_NAMES, ADMET_OOD_COLUMN, shardSchema } from './schema.ts';

export interface ShardColumns {
  productIds: string[];
  smiles: string[];
  /** rows * 256 bytes. */
  fps: Uint8Array;
  popcounts: Uint16Array;
  /** One array per descriptor, in DESCRIPTOR_NAMES order. */
  descriptors: Float64Array[];
  scaffolds: string[];
  /** Prices; NaN means unknown (stored as null). */
  prices: Float64Array;
  /** ADMET predictions by column name (NaN = null); absent columns are all null. */
  admet: Record<string, Float32Array> | null;
  /** Out-of-domain bitmask per row (bit i = ADMET_NAMES[i]); absent or null = all null. */
  admetOod?: Uint32Array | null;
  /** With admetOod: 1 where the row has predictions (its mask is stored), 0 where it is null. */
  admetOodValid?: Uint8Array | null;
}

const encoder = new TextEncoder();

function utf8Data(field: Struct['children'][number], values: string[]): Data {
  const offsets = new Int32Array(values.length + 1);
  const parts = values.map((v) => encoder.encode(v));
  let total = 0;
  parts.forEach((p, i) => {
    total += p.length;
    offsets[i + 1] = total;
  });
  const bytes = new Uint8Array(total);
  parts.forEach((p, i) => bytes.set(p, offsets[i]));
  return makeData({ type: field.type, length: values.length, valueOffsets: offsets, data: bytes });
}

/** Arrow validity bitmap (1 = valid) for the non-NaN entries, or undefined when all are valid. */
function validity(values: Float32Array | Float64Array): { bitmap?: Uint8Array; nullCount: number } {
  let nullCount = 0;
  const bitmap = new Uint8Array(Math.ceil(values.length / 8));
  for (let i = 0; i < values.length; i++) {
    if (Number.isNaN(values[i])) nullCount++;
    else bitmap[i >> 3] |= 1 << (i & 7);
  }
  return nullCount === 0 ? { nullCount } : { bitmap, nullCount };
}

function floatData(field: Struct['children'][number], values: Float32Array | Float64Array): Data {
  const { bitmap, nullCount } = validity(values);
  return makeData({
    type: field.type,
    length: values.length,
    nullCount,
    nullBitmap: bitmap,
    data: values,
  } as never);
}

function maskData(
  field: Struct['children'][number],
  n: number,
  values: Uint32Array | null,
  valid: Uint8Array | null,
): Data {
  const bitmap = new Uint8Array(Math.ceil(n / 8));
  let nullCount = 0;
  for (let i = 0; i < n; i++) {
    if (values && (!valid || valid[i])) bitmap[i >> 3] |= 1 << (i & 7);
    else nullCount++;
  }
  const data = values ?? new Uint32Array(n);
  return makeData({
    type: field.type,
    length: n,
    nullCount,
    nullBitmap: nullCount ? bitmap : undefined,
    data,
  } as never);
}

/** Encodes the rows as one Arrow IPC file (single record batch) with the catalog schema. */
export function encodeShard(cols: ShardColumns, rdkitVersion: string): Uint8Array {
  const schema = shardSchema(rdkitVersion);
  const n = cols.productIds.length;
  if (cols.fps.length !== n * FP_BYTES || cols.popcounts.length !== n)
    throw new Error('shard columns differ in length');
  const byName = new Map<string, Data>();
  const f = (name: string) => schema.fields.find((x) => x.name === name)!;
  byName.set('product_id', utf8Data(f('product_id'), cols.productIds));
  byName.set('smiles', utf8Data(f('smiles'), cols.smiles));
  byName.set('fp', makeData({ type: f('fp').type, length: n, data: cols.fps } as never));
  byName.set('popcount', makeData({ type: f('popcount').type, length: n, data: cols.popcounts } as never));
  DESCRIPTOR_NAMES.forEach((name, k) => byName.set(name, floatData(f(name), cols.descriptors[k])));
  byName.set('scaffold', utf8Data(f('scaffold'), cols.scaffolds));
  byName.set('price', floatData(f('price'), cols.prices));
  for (const name of ADMET_NAMES)
    byName.set(name, floatData(f(name), cols.admet?.[name] ?? new Float32Array(n).fill(NaN)));
  byName.set(
    ADMET_OOD_COLUMN,
    maskData(f(ADMET_OOD_COLUMN), n, cols.admetOod ?? null, cols.admetOodValid ?? null),
  );
  const children = schema.fields.map((x) => byName.get(x.name)!);
  const data = makeData({ type: new Struct(schema.fields), length: n, nullCount: 0, children });
  return tableToIPC(new Table(schema, [new RecordBatch(schema, data)]), 'file');
}

/** Hex SHA-256 of bytes (the manifest's shard checksum). */
export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}
