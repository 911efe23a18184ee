/**
 * The part a 3D shard scan writes to the object store: the shard's best rows by the job's metric
 * with both scores, the conformer pair and the alignment transform of each (so the merge can place
 * the hit's conformer onto the query without aligning again). Doubles throughout: the job's scores
 * must equal the synchronous search's to the last bit.
 */
export interface Part3d {
  /** Rows of the shard, best first. */
  rows: Int32Array;
  shape: Float64Array;
  esp: Float64Array;
  queryConf: Int32Array;
  candidateConf: Int32Array;
  /** 12 values a row (engine/shape Alignment.transform). */
  transforms: Float64Array;
  /** Rows of the shard scored exactly, and rows skipped for want of a 3D model. */
  scored: number;
  rejected: number;
}

const MAGIC = 0x4d533344; // 'MS3D'
const HEADER = 16;

/** Layout: magic, count, scored, rejected (u32); then shape, esp, transforms (f64), rows, confs (i32). */
export function encodePart3d(p: Part3d): Uint8Array {
  const n = p.rows.length;
  const buf = new ArrayBuffer(HEADER + n * 8 * 14 + n * 4 * 3);
  const head = new Uint32Array(buf, 0, 2);
  head[0] = MAGIC;
  head[1] = n;
  new Uint32Array(buf, 8, 2).set([p.scored, p.rejected]);
  let o = HEADER;
  for (const a of [p.shape, p.esp, p.transforms]) {
    new Float64Array(buf, o, a.length).set(a);
    o += a.byteLength;
  }
  for (const a of [p.rows, p.queryConf, p.candidateConf]) {
    new Int32Array(buf, o, a.length).set(a);
    o += a.byteLength;
  }
  return new Uint8Array(buf);
}

/** Decodes a part written by encodePart3d; throws on anything else. */
export function decodePart3d(bytes: Uint8Array): Part3d {
  const copy = bytes.byteOffset % 8 === 0 ? bytes : bytes.slice();
  const head = new Uint32Array(copy.buffer, copy.byteOffset, 4);
  const n = head[1];
  if (head[0] !== MAGIC || copy.byteLength !== HEADER + n * 8 * 14 + n * 4 * 3)
    throw new Error('not a 3D scan part');
  let o = copy.byteOffset + HEADER;
  const f64 = (len: number) => {
    const a = new Float64Array(copy.buffer, o, len);
    o += len * 8;
    return a;
  };
  const i32 = (len: number) => {
    const a = new Int32Array(copy.buffer, o, len);
    o += len * 4;
    return a;
  };
  const shape = f64(n);
  const esp = f64(n);
  const transforms = f64(n * 12);
  const rest = { rows: i32(n), queryConf: i32(n), candidateConf: i32(n) };
  return { shape, esp, transforms, ...rest, scored: head[2], rejected: head[3] };
}
