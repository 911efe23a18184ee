/**
 * Source of the search kernels, written against the encoder in encoder.ts. Fingerprints are
 * 2048-bit rows of 256 bytes (RDKit byte layout: bit i in byte i>>3, LSB first), read as 32
 * little-endian u64 words; popcounts are the catalog's precomputed u16 column, so a row costs one
 * AND + POPCNT per word and the row's own popcount is never recomputed.
 *
 * All pointers are byte offsets into the imported shared memory. Scores are f32, computed as the
 * correctly rounded f32 of c / (a + b - c) (an empty pair scores 0, as RDKit does).
 */
import { I, encodeModule, type FuncDef, type ValType } from './encoder.ts';
import { ROW_BYTES, WORDS, advance, earlyReturn, popcntTree, ptrAt } from './kernel-parts.ts';
import { blockPopcounts, tanimotoAboveBlocks } from './kernel-blocks.ts';

/**
 * Query words per step of tanimoto_above's word loop. Measured on the 1M benchmark rows (CPU time,
 * Sapphire Rapids VM): 32 (the whole row, one step) 28-29 M rows/s, 8: 26-28, and a v128 AND +
 * i8x16.popcnt variant 24-29 (V8 lowers i8x16.popcnt to a shuffle sequence on x64): the kernel
 * is instruction-bound at ~47 M rows/s in cache, so the forms tie and the simplest wins.
 */
const ABOVE_GROUP = 32;

/** d = a + b - c, made 1 when 0 (then c is 0 too, so the score is 0 as in RDKit). */
function denominator(a: number, pp: number, c: number, d: number): number[] {
  return [...I.get(a), ...I.get(pp), ...I.i32Load16U(), ...I.i32Add(), ...I.get(c), ...I.i32Sub(), ...I.tee(d), ...I.get(d), ...I.i32Eqz(), ...I.i32Add()];
}

/** tanimoto_range(q, fp, pc, start, end, a, out): out[i - start] = T(q, row i) for i in [start, end). */
function tanimotoRange(): FuncDef {
  const [q, fp, pc, start, end, a, out, p, pend, pp, c, d] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
  const body = [
    ...earlyReturn(start, end),
    ...ptrAt(fp, start, 8, p), ...ptrAt(fp, end, 8, pend), ...ptrAt(pc, start, 1, pp),
    ...I.loop(),
    ...popcntTree(q, p, 0, WORDS), ...I.i32WrapI64(), ...I.set(c),
    ...I.get(out), ...I.get(c), ...I.f32ConvertI32U(), ...denominator(a, pp, c, d), ...I.f32ConvertI32U(), ...I.f32Div(), ...I.f32Store(),
    ...advance(out, 4), ...advance(pp, 2),
    ...I.get(p), ...I.i32Const(ROW_BYTES), ...I.i32Add(), ...I.tee(p), ...I.get(pend), ...I.i32Ne(), ...I.brIf(0),
    ...I.end(),
  ];
  const locals: ValType[] = ['i32', 'i32', 'i32', 'i32', 'i32'];
  return { name: 'tanimoto_range', params: ['i32', 'i32', 'i32', 'i32', 'i32', 'i32', 'i32'], results: [], locals, body };
}

/**
 * tanimoto_above(q, fp, pc, start, end, a, min, outRows, outScores) -> n: writes the rows of
 * [start, end) whose score is >= min (f32) and their scores, in row order; returns how many.
 * Branch-free: every row is stored at slot n and n advances only when it qualifies, so the
 * output buffers need room for end - start entries. Rows go in pairs sharing each query-word
 * load, with two accumulators per row (measured ~1.4x faster in cache than one row at a time),
 * then a single-row tail.
 */
function tanimotoAbove(group: number, name = 'tanimoto_above'): FuncDef {
  const [q, fp, pc, start, end, a, min, outRows, outScores] = [0, 1, 2, 3, 4, 5, 6, 7, 8];
  const [p, pend, pp, c, d, n4, s, qv, c0, c1, c2, c3, k, qk, pk] = [9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23];
  // Scores the row at p + 256·rowAdd whose intersection count is in local c, and appends it.
  const emit = (rowAdd: number): number[] => [
    ...I.get(c), ...I.f32ConvertI32U(),
    ...I.get(a), ...I.get(pp), ...I.i32Load16U(rowAdd * 2), ...I.i32Add(), ...I.get(c), ...I.i32Sub(), ...I.tee(d), ...I.get(d), ...I.i32Eqz(), ...I.i32Add(),
    ...I.f32ConvertI32U(), ...I.f32Div(), ...I.set(s),
    ...I.get(outRows), ...I.get(n4), ...I.i32Add(), ...I.get(p), ...I.get(fp), ...I.i32Sub(), ...I.i32Const(8), ...I.i32ShrU(), ...I.i32Const(rowAdd), ...I.i32Add(), ...I.i32Store(),
    ...I.get(outScores), ...I.get(n4), ...I.i32Add(), ...I.get(s), ...I.f32Store(),
    ...I.get(n4), ...I.get(s), ...I.get(min), ...I.f32Ge(), ...I.i32Const(2), ...I.i32Shl(), ...I.i32Add(), ...I.set(n4),
  ];
  // Words go in steps of `group` inside a loop (group 32 = one step per row pair).
  const pair: number[] = [...I.i64Const(0), ...I.set(c0), ...I.i64Const(0), ...I.set(c1), ...I.i64Const(0), ...I.set(c2), ...I.i64Const(0), ...I.set(c3)];
  pair.push(...I.i32Const(0), ...I.set(k), ...I.loop(), ...I.get(q), ...I.get(k), ...I.i32Add(), ...I.set(qk), ...I.get(p), ...I.get(k), ...I.i32Add(), ...I.set(pk));
  for (let w = 0; w < group; w++) {
    const [r0, r1] = w % 2 ? [c2, c3] : [c0, c1];
    pair.push(...I.get(qk), ...I.i64Load(w * 8), ...I.set(qv));
    pair.push(...I.get(r0), ...I.get(qv), ...I.get(pk), ...I.i64Load(w * 8), ...I.i64And(), ...I.i64Popcnt(), ...I.i64Add(), ...I.set(r0));
    pair.push(...I.get(r1), ...I.get(qv), ...I.get(pk), ...I.i64Load(ROW_BYTES + w * 8), ...I.i64And(), ...I.i64Popcnt(), ...I.i64Add(), ...I.set(r1));
  }
  pair.push(...I.get(k), ...I.i32Const(group * 8), ...I.i32Add(), ...I.tee(k), ...I.i32Const(ROW_BYTES), ...I.i32Ne(), ...I.brIf(0), ...I.end());
  const body = [
    ...earlyReturn(start, end, I.i32Const(0)),
    ...ptrAt(fp, start, 8, p), ...ptrAt(fp, end, 8, pend), ...ptrAt(pc, start, 1, pp),
    ...I.block(), ...I.loop(),
    ...I.get(p), ...I.i32Const(2 * ROW_BYTES), ...I.i32Add(), ...I.get(pend), ...I.i32GtU(), ...I.brIf(1),
    ...pair,
    ...I.get(c0), ...I.get(c2), ...I.i64Add(), ...I.i32WrapI64(), ...I.set(c), ...emit(0),
    ...I.get(c1), ...I.get(c3), ...I.i64Add(), ...I.i32WrapI64(), ...I.set(c), ...emit(1),
    ...advance(pp, 4), ...advance(p, 2 * ROW_BYTES),
    ...I.br(0),
    ...I.end(), ...I.end(),
    ...I.get(p), ...I.get(pend), ...I.i32Ne(), ...I.if(),
    ...popcntTree(q, p, 0, WORDS), ...I.i32WrapI64(), ...I.set(c), ...emit(0),
    ...I.end(),
    ...I.get(n4), ...I.i32Const(2), ...I.i32ShrU(),
  ];
  const locals: ValType[] = ['i32', 'i32', 'i32', 'i32', 'i32', 'i32', 'f32', 'i64', 'i64', 'i64', 'i64', 'i64', 'i32', 'i32', 'i32'];
  return { name, params: ['i32', 'i32', 'i32', 'i32', 'i32', 'i32', 'f32', 'i32', 'i32'], results: ['i32'], locals, body };
}

/**
 * centroid_above(w, w2, fp, pc, start, end, min, outRows, outScores) -> n: continuous Tanimoto
 * of each row x against the f64 weight vector w (2048 entries, bit order of the fingerprint
 * bytes): s = sum of w over x's set bits (ascending bit order), score = f32(s / (b + w2 - s)),
 * 0 when the denominator is 0. Same output convention as tanimoto_above.
 */
function centroidAbove(): FuncDef {
  const [w, w2, fp, pc, start, end, min, outRows, outScores] = [0, 1, 2, 3, 4, 5, 6, 7, 8];
  const [p, pend, pp, n4, s, x, k, wb, d, sc] = [9, 10, 11, 12, 13, 14, 15, 16, 17, 18];
  const body = [
    ...earlyReturn(start, end, I.i32Const(0)),
    ...ptrAt(fp, start, 8, p), ...ptrAt(fp, end, 8, pend), ...ptrAt(pc, start, 1, pp),
    ...I.loop(),
    ...I.f64Const(0), ...I.set(s), ...I.i32Const(0), ...I.set(k), ...I.get(w), ...I.set(wb),
    ...I.loop(),
    ...I.get(p), ...I.get(k), ...I.i32Add(), ...I.i64Load(), ...I.set(x),
    ...I.block(), ...I.loop(),
    ...I.get(x), ...I.i64Eqz(), ...I.brIf(1),
    ...I.get(s), ...I.get(wb), ...I.get(x), ...I.i64Ctz(), ...I.i32WrapI64(), ...I.i32Const(3), ...I.i32Shl(), ...I.i32Add(), ...I.f64Load(), ...I.f64Add(), ...I.set(s),
    ...I.get(x), ...I.get(x), ...I.i64Const(1), ...I.i64Sub(), ...I.i64And(), ...I.set(x),
    ...I.br(0),
    ...I.end(), ...I.end(),
    ...advance(wb, 512),
    ...I.get(k), ...I.i32Const(8), ...I.i32Add(), ...I.tee(k), ...I.i32Const(ROW_BYTES), ...I.i32Ne(), ...I.brIf(0),
    ...I.end(),
    ...I.get(pp), ...I.i32Load16U(), ...I.f64ConvertI32U(), ...I.get(w2), ...I.f64Add(), ...I.get(s), ...I.f64Sub(), ...I.set(d),
    ...I.f32Const(0), ...I.get(s), ...I.get(d), ...I.f64Div(), ...I.f32DemoteF64(), ...I.get(d), ...I.f64Const(0), ...I.f64Eq(), ...I.select(), ...I.set(sc),
    ...I.get(outRows), ...I.get(n4), ...I.i32Add(), ...I.get(p), ...I.get(fp), ...I.i32Sub(), ...I.i32Const(8), ...I.i32ShrU(), ...I.i32Store(),
    ...I.get(outScores), ...I.get(n4), ...I.i32Add(), ...I.get(sc), ...I.f32Store(),
    ...I.get(n4), ...I.get(sc), ...I.get(min), ...I.f32Ge(), ...I.i32Const(2), ...I.i32Shl(), ...I.i32Add(), ...I.set(n4),
    ...advance(pp, 2),
    ...I.get(p), ...I.i32Const(ROW_BYTES), ...I.i32Add(), ...I.tee(p), ...I.get(pend), ...I.i32Ne(), ...I.brIf(0),
    ...I.end(),
    ...I.get(n4), ...I.i32Const(2), ...I.i32ShrU(),
  ];
  const locals: ValType[] = ['i32', 'i32', 'i32', 'i32', 'f64', 'i64', 'i32', 'i32', 'f64', 'f32'];
  return { name: 'centroid_above', params: ['i32', 'f64', 'i32', 'i32', 'i32', 'i32', 'f32', 'i32', 'i32'], results: ['i32'], locals, body };
}

/**
 * read_or(ptr, len) -> i64: ORs every byte of [ptr, ptr + len) (len a multiple of 128) with
 * 16-byte loads, four independent accumulators. It does the least work per byte a scan can do, so
 * its throughput over a buffer much larger than the caches is the single-core read bandwidth
 * ceiling the benchmark compares the Tanimoto scan against.
 */
function readOr(): FuncDef {
  const [ptr, len, end, a0, a1, a2, a3] = [0, 1, 2, 3, 4, 5, 6];
  const acc = [a0, a1, a2, a3];
  const step: number[] = [];
  for (let j = 0; j < 8; j++) step.push(...I.get(acc[j % 4]), ...I.get(ptr), ...I.v128Load(j * 16), ...I.v128Or(), ...I.set(acc[j % 4]));
  const body = [
    ...I.get(ptr), ...I.get(len), ...I.i32Add(), ...I.set(end),
    ...I.block(), ...I.get(len), ...I.i32Eqz(), ...I.brIf(0),
    ...I.loop(), ...step, ...advance(ptr, 128), ...I.get(ptr), ...I.get(end), ...I.i32Ne(), ...I.brIf(0), ...I.end(),
    ...I.end(),
    ...I.get(a0), ...I.get(a1), ...I.v128Or(), ...I.get(a2), ...I.get(a3), ...I.v128Or(), ...I.v128Or(), ...I.set(a0),
    ...I.get(a0), ...I.i64x2ExtractLane(0), ...I.get(a0), ...I.i64x2ExtractLane(1), ...I.i64Or(),
  ];
  return { name: 'read_or', params: ['i32', 'i32'], results: ['i64'], locals: ['i32', 'v128', 'v128', 'v128', 'v128'], body };
}

/** The kernel module's bytes (imports env.memory, shared). */
export function kernelModuleBytes(): Uint8Array {
  return encodeModule([tanimotoRange(), tanimotoAbove(ABOVE_GROUP), centroidAbove(), readOr(), blockPopcounts(), tanimotoAboveBlocks()]);
}
