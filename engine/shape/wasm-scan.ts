/**
 * The first-stage scan as a WebAssembly SIMD kernel (encoded with engine/search/wasm/encoder.ts):
 * per row, the smallest sum of |query − row| over (query conformer, row conformer) pairs of
 * 60-float descriptors, 15 f32x4 steps per pair. `createUsrScanner` copies a descriptor table into
 * a kernel memory once; each scan writes the query there and reads the per-row minima back.
 * Same ranking as scan.ts (sums differ only by float rounding order).
 */
import { createSharedMemory } from '../search/kernel.ts';
import { I, encodeModule, uleb, type FuncDef } from '../search/wasm/encoder.ts';
import { Wasm, type WasmMemory, type WasmModule } from '../search/wasm/wasm-api.ts';
import { DESCRIPTOR_LENGTH } from './descriptors.ts';
import type { DescriptorTable, Shortlist } from './scan.ts';
import { topK } from './scan.ts';

const BYTES = DESCRIPTOR_LENGTH * 4;
const simd = (code: number): number[] => [0xfd, ...uleb(code)];
const F32X4_SPLAT = simd(0x13);
const F32X4_ABS = simd(0xe0);
const F32X4_ADD = simd(0xe4);
const F32X4_SUB = simd(0xe5);
const lane = (l: number): number[] => [...simd(0x1f), l];
const F32_ADD = [0x92];
const F32_MIN = [0x96];

/** usr_scan(q, qn, db, off, r0, r1, out): out[r − r0] = min over pairs of Σ|q − db| for r in [r0, r1). */
function usrScan(): FuncDef {
  const [q, qn, db, off, r0, r1, out] = [0, 1, 2, 3, 4, 5, 6];
  const [r, c, cend, pc, qi, pq, best, acc] = [7, 8, 9, 10, 11, 12, 13, 14];
  const pairSum: number[] = [...I.f32Const(0), ...F32X4_SPLAT, ...I.set(acc)];
  for (let k = 0; k < DESCRIPTOR_LENGTH / 4; k++)
    pairSum.push(
      ...I.get(acc),
      ...I.get(pq),
      ...I.v128Load(16 * k),
      ...I.get(pc),
      ...I.v128Load(16 * k),
      ...F32X4_SUB,
      ...F32X4_ABS,
      ...F32X4_ADD,
      ...I.set(acc),
    );
  pairSum.push(
    ...I.get(acc),
    ...lane(0),
    ...I.get(acc),
    ...lane(1),
    ...F32_ADD,
    ...I.get(acc),
    ...lane(2),
    ...F32_ADD,
    ...I.get(acc),
    ...lane(3),
    ...F32_ADD,
    ...I.get(best),
    ...F32_MIN,
    ...I.set(best),
  );
  const inc = (v: number, by: number) => [...I.get(v), ...I.i32Const(by), ...I.i32Add(), ...I.set(v)];
  const body = [
    ...I.get(r0),
    ...I.set(r),
    ...I.block(),
    ...I.loop(), // rows
    ...I.get(r),
    ...I.get(r1),
    ...I.i32GeU(),
    ...I.brIf(1),
    ...I.get(off),
    ...I.get(r),
    ...I.i32Const(2),
    ...I.i32Shl(),
    ...I.i32Add(),
    ...I.tee(pc),
    ...I.i32Load(0),
    ...I.set(c),
    ...I.get(pc),
    ...I.i32Load(4),
    ...I.set(cend),
    ...I.f32Const(Infinity),
    ...I.set(best),
    ...I.block(),
    ...I.loop(), // row conformers
    ...I.get(c),
    ...I.get(cend),
    ...I.i32GeU(),
    ...I.brIf(1),
    ...I.get(db),
    ...I.get(c),
    ...I.i32Const(BYTES),
    ...I.i32Mul(),
    ...I.i32Add(),
    ...I.set(pc),
    ...I.i32Const(0),
    ...I.set(qi),
    ...I.get(q),
    ...I.set(pq),
    ...I.block(),
    ...I.loop(), // query conformers
    ...I.get(qi),
    ...I.get(qn),
    ...I.i32GeU(),
    ...I.brIf(1),
    ...pairSum,
    ...inc(pq, BYTES),
    ...inc(qi, 1),
    ...I.br(0),
    ...I.end(),
    ...I.end(),
    ...inc(c, 1),
    ...I.br(0),
    ...I.end(),
    ...I.end(),
    ...I.get(out),
    ...I.get(r),
    ...I.get(r0),
    ...I.i32Sub(),
    ...I.i32Const(2),
    ...I.i32Shl(),
    ...I.i32Add(),
    ...I.get(best),
    ...I.f32Store(),
    ...inc(r, 1),
    ...I.br(0),
    ...I.end(),
    ...I.end(),
  ];
  return {
    name: 'usr_scan',
    params: ['i32', 'i32', 'i32', 'i32', 'i32', 'i32', 'i32'],
    results: [],
    locals: ['i32', 'i32', 'i32', 'i32', 'i32', 'i32', 'f32', 'v128'],
    body,
  };
}

let compiled: WasmModule | undefined;
const scanModule = (): WasmModule => (compiled ??= new Wasm.Module(encodeModule([usrScan()])));

export interface UsrScanner {
  /** The k rows most similar to `query` (descriptors of its conformers), best first, as scanShortlist. */
  scan(query: Float32Array, k: number, maxQueryConfs?: number): Shortlist;
  memory: WasmMemory;
}

/** Loads `table` into a kernel memory; queries of up to `maxQueryConfs` conformers. */
export function createUsrScanner(table: DescriptorTable, maxQueryConfs = 64): UsrScanner {
  const rows = table.offsets.length - 1;
  const Q = 0;
  const DB = align16(maxQueryConfs * BYTES);
  const OFF = align16(DB + table.descriptors.byteLength);
  const OUT = align16(OFF + table.offsets.byteLength);
  const memory = createSharedMemory(OUT + rows * 4);
  const inst = new Wasm.Instance(scanModule(), { env: { memory } });
  const run = inst.exports.usr_scan as (...a: number[]) => void;
  const buf = memory.buffer;
  new Float32Array(buf, DB, table.descriptors.length).set(table.descriptors);
  new Uint32Array(buf, OFF, table.offsets.length).set(table.offsets);
  const sums = new Float32Array(buf, OUT, rows);
  return {
    memory,
    scan(query, k) {
      const qn = query.length / DESCRIPTOR_LENGTH;
      if (qn > maxQueryConfs) throw new RangeError(`at most ${maxQueryConfs} query conformers`);
      new Float32Array(buf, Q, query.length).set(query);
      run(Q, qn, DB, OFF, 0, rows, OUT);
      const scores = Float32Array.from(sums, (s) => 1 / (1 + s / DESCRIPTOR_LENGTH));
      const order = topK(scores, Math.min(k, rows));
      return { rows: order, scores: Float32Array.from(order, (r) => scores[r]) };
    },
  };
}

const align16 = (n: number): number => Math.ceil(n / 16) * 16;
