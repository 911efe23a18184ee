/**
 * The Gaussian grid first stage (gaussian-grid.ts) as a WebAssembly SIMD kernel: per row, the best
 * Tanimoto ab/(aa + bb − ab) over (flipped query conformer, row conformer) pairs of 136-float grid
 * vectors, each dot product 34 f32x4 multiply-adds. `createGridScanner` loads a table into a kernel
 * memory once. Same ranking as gridScan (sums differ only by float rounding order).
 */
import { createSharedMemory } from '../search/kernel.ts';
import { I, encodeModule, uleb, type FuncDef } from '../search/wasm/encoder.ts';
import { Wasm, type WasmModule } from '../search/wasm/wasm-api.ts';
import { flippedQuery, GRID_LENGTH } from './gaussian-grid.ts';
import { topK, type DescriptorTable, type Shortlist } from './scan.ts';

const BYTES = GRID_LENGTH * 4;
const simd = (code: number): number[] => [0xfd, ...uleb(code)];
const lane = (l: number): number[] => [...simd(0x1f), l];
const [F32X4_SPLAT, F32X4_ADD, F32X4_MUL] = [simd(0x13), simd(0xe4), simd(0xe6)];
const [F32_ADD, F32_SUB, F32_MAX] = [[0x92], [0x93], [0x97]];
const f32Load = (offset = 0): number[] => [0x2a, ...uleb(2), ...uleb(offset)];

/** Σ a·b over one grid vector pair (pointers in locals pa, pb), left on the stack as f32. */
function dot(pa: number, pb: number, acc: number): number[] {
  const out = [...I.f32Const(0), ...F32X4_SPLAT, ...I.set(acc)];
  for (let k = 0; k < GRID_LENGTH / 4; k++)
    out.push(
      ...I.get(acc),
      ...I.get(pa),
      ...I.v128Load(16 * k),
      ...I.get(pb),
      ...I.v128Load(16 * k),
      ...F32X4_MUL,
      ...F32X4_ADD,
      ...I.set(acc),
    );
  out.push(...I.get(acc), ...lane(0), ...I.get(acc), ...lane(1), ...F32_ADD);
  out.push(...I.get(acc), ...lane(2), ...F32_ADD, ...I.get(acc), ...lane(3), ...F32_ADD);
  return out;
}

/** grid_scan(qf, nv, qq, db, off, r0, r1, out): out[r − r0] = best Tanimoto of row r. */
function gridScanFunc(): FuncDef {
  const [qf, nv, qq, db, off, r0, r1, out] = [0, 1, 2, 3, 4, 5, 6, 7];
  const [r, c, cend, pc, v, pq, best, bb, ab, acc] = [8, 9, 10, 11, 12, 13, 14, 15, 16, 17];
  const inc = (x: number, by: number) => [...I.get(x), ...I.i32Const(by), ...I.i32Add(), ...I.set(x)];
  const loopWhileLess = (i: number, end: number, body: number[]) => [
    ...I.block(),
    ...I.loop(),
    ...I.get(i),
    ...I.get(end),
    ...I.i32GeU(),
    ...I.brIf(1),
    ...body,
    ...I.br(0),
    ...I.end(),
    ...I.end(),
  ];
  const perQuery = [
    ...dot(pq, pc, acc),
    ...I.set(ab),
    ...I.get(ab),
    // qq[v] + bb − ab
    ...I.get(qq),
    ...I.get(v),
    ...I.i32Const(2),
    ...I.i32Shl(),
    ...I.i32Add(),
    ...f32Load(0),
    ...I.get(bb),
    ...F32_ADD,
    ...I.get(ab),
    ...F32_SUB,
    ...I.f32Div(),
    ...I.get(best),
    ...F32_MAX,
    ...I.set(best),
    ...inc(pq, BYTES),
    ...inc(v, 1),
  ];
  const perConformer = [
    ...I.get(db),
    ...I.get(c),
    ...I.i32Const(BYTES),
    ...I.i32Mul(),
    ...I.i32Add(),
    ...I.set(pc),
    ...dot(pc, pc, acc),
    ...I.set(bb),
    ...I.i32Const(0),
    ...I.set(v),
    ...I.get(qf),
    ...I.set(pq),
    ...loopWhileLess(v, nv, perQuery),
    ...inc(c, 1),
  ];
  const perRow = [
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
    ...I.f32Const(0),
    ...I.set(best),
    ...loopWhileLess(c, cend, perConformer),
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
  ];
  return {
    name: 'grid_scan',
    params: ['i32', 'i32', 'i32', 'i32', 'i32', 'i32', 'i32', 'i32'],
    results: [],
    locals: ['i32', 'i32', 'i32', 'i32', 'i32', 'i32', 'f32', 'f32', 'f32', 'v128'],
    body: [...I.get(r0), ...I.set(r), ...loopWhileLess(r, r1, perRow)],
  };
}

let compiled: WasmModule | undefined;
const gridModule = (): WasmModule => (compiled ??= new Wasm.Module(encodeModule([gridScanFunc()])));

export interface GridScanner {
  /** The k rows most similar to `query` (grid descriptors of its conformers), best first. */
  scan(query: Float32Array, k: number): Shortlist;
}

/** Loads `table` (grid descriptors) into a kernel memory; queries of up to `maxQueryConfs` conformers. */
export function createGridScanner(table: DescriptorTable, maxQueryConfs = 32): GridScanner {
  const rows = table.offsets.length - 1;
  const QQ = 0;
  const QF = align16(maxQueryConfs * 4 * 4);
  const DB = align16(QF + maxQueryConfs * 4 * BYTES);
  const OFF = align16(DB + table.descriptors.byteLength);
  const OUT = align16(OFF + table.offsets.byteLength);
  const memory = createSharedMemory(OUT + rows * 4);
  const run = new Wasm.Instance(gridModule(), { env: { memory } }).exports.grid_scan as (
    ...a: number[]
  ) => void;
  const buf = memory.buffer;
  new Float32Array(buf, DB, table.descriptors.length).set(table.descriptors);
  new Uint32Array(buf, OFF, table.offsets.length).set(table.offsets);
  const scores = new Float32Array(buf, OUT, rows);
  return {
    scan(query, k) {
      const { flipped, norms } = flippedQuery(query);
      if (norms.length > maxQueryConfs * 4) throw new RangeError(`at most ${maxQueryConfs} query conformers`);
      new Float32Array(buf, QF, flipped.length).set(flipped);
      new Float32Array(buf, QQ, norms.length).set(norms);
      run(QF, norms.length, QQ, DB, OFF, 0, rows, OUT);
      const order = topK(scores, Math.min(k, rows));
      return { rows: order, scores: Float32Array.from(order, (r) => scores[r]) };
    },
  };
}

const align16 = (n: number): number => Math.ceil(n / 16) * 16;
