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
import { ROW_BYTES, WORDS, advance, earlyReturn, popcntTree, ptrAt, scoreAndAppend } from './kernel-parts.ts';
import { blockBits, screenRows } from './kernel-blocks.ts';
import { tanimotoRows } from './kernel-rows.ts';

/** d = a + b - c, made 1 when 0 (then c is 0 too, so the score is 0 as in RDKit). */
function denominator(a: number, pp: number, c: number, d: number): number[] {
  return [
    ...I.get(a),
    ...I.get(pp),
    ...I.i32Load16U(),
    ...I.i32Add(),
    ...I.get(c),
    ...I.i32Sub(),
    ...I.tee(d),
    ...I.get(d),
    ...I.i32Eqz(),
    ...I.i32Add(),
  ];
}

/** tanimoto_range(q, fp, pc, start, end, a, out): out[i - start] = T(q, row i) for i in [start, end). */
function tanimotoRange(): FuncDef {
  const [q, fp, pc, start, end, a, out, p, pend, pp, c, d] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
  const body = [
    ...earlyReturn(start, end),
    ...ptrAt(fp, start, 8, p),
    ...ptrAt(fp, end, 8, pend),
    ...ptrAt(pc, start, 1, pp),
    ...I.loop(),
    ...popcntTree(q, p, 0, WORDS),
    ...I.i32WrapI64(),
    ...I.set(c),
    ...I.get(out),
    ...I.get(c),
    ...I.f32ConvertI32U(),
    ...denominator(a, pp, c, d),
    ...I.f32ConvertI32U(),
    ...I.f32Div(),
    ...I.f32Store(),
    ...advance(out, 4),
    ...advance(pp, 2),
    ...I.get(p),
    ...I.i32Const(ROW_BYTES),
    ...I.i32Add(),
    ...I.tee(p),
    ...I.get(pend),
    ...I.i32Ne(),
    ...I.brIf(0),
    ...I.end(),
  ];
  const locals: ValType[] = ['i32', 'i32', 'i32', 'i32', 'i32'];
  return {
    name: 'tanimoto_range',
    params: ['i32', 'i32', 'i32', 'i32', 'i32', 'i32', 'i32'],
    results: [],
    locals,
    body,
  };
}

/**
 * tanimoto_above(q, fp, pc, start, end, a, min, outRows, outScores) -> n: writes the rows of
 * [start, end) whose score is >= min (f32) and their scores, in row order; returns how many.
 * Branch-free: every row is stored at slot n and n advances only when it qualifies, so the
 * output buffers need room for end - start entries.
 *
 * Two streams: each step scores row i of the first half (A) and row i of the second half (B)
 * of the range, sharing each query load. Two sequential streams keep twice as many cache-line
 * misses in flight as one, which is what took the full scan from ~0.65 to ~1.0 of the
 * single-core read bandwidth (docs/search.md). A's hits go to slots [0, nA), B's to slots
 * [half, half + nB) (A can never reach slot half), then B's are moved down to slot nA so the
 * output is in row order; an odd last row is scored alone. Counts: 16-byte v128 loads ANDed with
 * the query, both i64 lanes extracted and popcounted (half the loads of 32 i64 loads; measured
 * ~1.3x faster in cache than i64 loads, and faster than mixing in i8x16.popcnt).
 */
function tanimotoAbove(): FuncDef {
  const [q, fp, pc, start, end, a, min, outRows, outScores] = [0, 1, 2, 3, 4, 5, 6, 7, 8];
  const [p, pend, pp, c, d, n4, s, qv, x, cA, cB, p2, pp2, nB, half4, i] = [
    9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24,
  ];
  // Scores the row at rowPtr (popcount at ppL) whose intersection count is in local c, appends it at slot nL (bytes).
  const emit = (ppL: number, rowPtr: number, nL: number): number[] =>
    scoreAndAppend(
      { c, a, d, s, min, outRows, outScores, n: nL },
      [...I.get(ppL), ...I.i32Load16U()],
      [...I.get(rowPtr), ...I.get(fp), ...I.i32Sub(), ...I.i32Const(8), ...I.i32ShrU()],
    );
  const counts: number[] = [...I.i64Const(0), ...I.set(cA), ...I.i64Const(0), ...I.set(cB)];
  for (let h = 0; h < WORDS / 2; h++) {
    counts.push(...I.get(q), ...I.v128Load(h * 16), ...I.set(qv));
    for (const [acc, rowPtr] of [
      [cA, p],
      [cB, p2],
    ]) {
      counts.push(...I.get(qv), ...I.get(rowPtr), ...I.v128Load(h * 16), ...I.v128And(), ...I.set(x));
      counts.push(
        ...I.get(acc),
        ...I.get(x),
        ...I.i64x2ExtractLane(0),
        ...I.i64Popcnt(),
        ...I.i64Add(),
        ...I.get(x),
        ...I.i64x2ExtractLane(1),
        ...I.i64Popcnt(),
        ...I.i64Add(),
        ...I.set(acc),
      );
    }
  }
  // Moves B's nB - half4 bytes of entries from slot half down to slot nA (n4); nA <= half, so forward copy is safe.
  const move = (buf: number): number[] => [
    ...I.get(buf),
    ...I.get(n4),
    ...I.i32Add(),
    ...I.get(i),
    ...I.i32Add(),
    ...I.get(buf),
    ...I.get(half4),
    ...I.i32Add(),
    ...I.get(i),
    ...I.i32Add(),
    ...I.i32Load(),
    ...I.i32Store(),
  ];
  const body = [
    ...earlyReturn(start, end, I.i32Const(0)),
    ...I.get(end),
    ...I.get(start),
    ...I.i32Sub(),
    ...I.i32Const(1),
    ...I.i32ShrU(),
    ...I.i32Const(2),
    ...I.i32Shl(),
    ...I.tee(half4),
    ...I.set(nB),
    ...ptrAt(fp, start, 8, p),
    ...I.get(p),
    ...I.get(half4),
    ...I.i32Const(6),
    ...I.i32Shl(),
    ...I.i32Add(),
    ...I.tee(pend),
    ...I.set(p2),
    ...ptrAt(pc, start, 1, pp),
    ...I.get(pp),
    ...I.get(half4),
    ...I.i32Const(1),
    ...I.i32ShrU(),
    ...I.i32Add(),
    ...I.set(pp2),
    ...I.block(),
    ...I.get(half4),
    ...I.i32Eqz(),
    ...I.brIf(0),
    ...I.loop(),
    ...counts,
    ...I.get(cA),
    ...I.i32WrapI64(),
    ...I.set(c),
    ...emit(pp, p, n4),
    ...I.get(cB),
    ...I.i32WrapI64(),
    ...I.set(c),
    ...emit(pp2, p2, nB),
    ...advance(pp, 2),
    ...advance(pp2, 2),
    ...advance(p2, ROW_BYTES),
    ...I.get(p),
    ...I.i32Const(ROW_BYTES),
    ...I.i32Add(),
    ...I.tee(p),
    ...I.get(pend),
    ...I.i32Ne(),
    ...I.brIf(0),
    ...I.end(),
    ...I.end(),
    ...I.get(nB),
    ...I.get(half4),
    ...I.i32Sub(),
    ...I.set(nB),
    ...I.block(),
    ...I.get(nB),
    ...I.i32Eqz(),
    ...I.brIf(0),
    ...I.loop(),
    ...move(outRows),
    ...move(outScores),
    ...I.get(i),
    ...I.i32Const(4),
    ...I.i32Add(),
    ...I.tee(i),
    ...I.get(nB),
    ...I.i32Ne(),
    ...I.brIf(0),
    ...I.end(),
    ...I.end(),
    ...I.get(n4),
    ...I.get(nB),
    ...I.i32Add(),
    ...I.set(n4),
    // Odd range: the last row (p2 now points at it, pp2 at its popcount).
    ...I.get(end),
    ...I.get(start),
    ...I.i32Sub(),
    ...I.i32Const(1),
    ...I.i32And(),
    ...I.if(),
    ...popcntTree(q, p2, 0, WORDS),
    ...I.i32WrapI64(),
    ...I.set(c),
    ...emit(pp2, p2, n4),
    ...I.end(),
    ...I.get(n4),
    ...I.i32Const(2),
    ...I.i32ShrU(),
  ];
  const locals: ValType[] = [
    'i32',
    'i32',
    'i32',
    'i32',
    'i32',
    'i32',
    'f32',
    'v128',
    'v128',
    'i64',
    'i64',
    'i32',
    'i32',
    'i32',
    'i32',
    'i32',
  ];
  return {
    name: 'tanimoto_above',
    params: ['i32', 'i32', 'i32', 'i32', 'i32', 'i32', 'f32', 'i32', 'i32'],
    results: ['i32'],
    locals,
    body,
  };
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
    ...ptrAt(fp, start, 8, p),
    ...ptrAt(fp, end, 8, pend),
    ...ptrAt(pc, start, 1, pp),
    ...I.loop(),
    ...I.f64Const(0),
    ...I.set(s),
    ...I.i32Const(0),
    ...I.set(k),
    ...I.get(w),
    ...I.set(wb),
    ...I.loop(),
    ...I.get(p),
    ...I.get(k),
    ...I.i32Add(),
    ...I.i64Load(),
    ...I.set(x),
    ...I.block(),
    ...I.loop(),
    ...I.get(x),
    ...I.i64Eqz(),
    ...I.brIf(1),
    ...I.get(s),
    ...I.get(wb),
    ...I.get(x),
    ...I.i64Ctz(),
    ...I.i32WrapI64(),
    ...I.i32Const(3),
    ...I.i32Shl(),
    ...I.i32Add(),
    ...I.f64Load(),
    ...I.f64Add(),
    ...I.set(s),
    ...I.get(x),
    ...I.get(x),
    ...I.i64Const(1),
    ...I.i64Sub(),
    ...I.i64And(),
    ...I.set(x),
    ...I.br(0),
    ...I.end(),
    ...I.end(),
    ...advance(wb, 512),
    ...I.get(k),
    ...I.i32Const(8),
    ...I.i32Add(),
    ...I.tee(k),
    ...I.i32Const(ROW_BYTES),
    ...I.i32Ne(),
    ...I.brIf(0),
    ...I.end(),
    ...I.get(pp),
    ...I.i32Load16U(),
    ...I.f64ConvertI32U(),
    ...I.get(w2),
    ...I.f64Add(),
    ...I.get(s),
    ...I.f64Sub(),
    ...I.set(d),
    ...I.f32Const(0),
    ...I.get(s),
    ...I.get(d),
    ...I.f64Div(),
    ...I.f32DemoteF64(),
    ...I.get(d),
    ...I.f64Const(0),
    ...I.f64Eq(),
    ...I.select(),
    ...I.set(sc),
    ...I.get(outRows),
    ...I.get(n4),
    ...I.i32Add(),
    ...I.get(p),
    ...I.get(fp),
    ...I.i32Sub(),
    ...I.i32Const(8),
    ...I.i32ShrU(),
    ...I.i32Store(),
    ...I.get(outScores),
    ...I.get(n4),
    ...I.i32Add(),
    ...I.get(sc),
    ...I.f32Store(),
    ...I.get(n4),
    ...I.get(sc),
    ...I.get(min),
    ...I.f32Ge(),
    ...I.i32Const(2),
    ...I.i32Shl(),
    ...I.i32Add(),
    ...I.set(n4),
    ...advance(pp, 2),
    ...I.get(p),
    ...I.i32Const(ROW_BYTES),
    ...I.i32Add(),
    ...I.tee(p),
    ...I.get(pend),
    ...I.i32Ne(),
    ...I.brIf(0),
    ...I.end(),
    ...I.get(n4),
    ...I.i32Const(2),
    ...I.i32ShrU(),
  ];
  const locals: ValType[] = ['i32', 'i32', 'i32', 'i32', 'f64', 'i64', 'i32', 'i32', 'f64', 'f32'];
  return {
    name: 'centroid_above',
    params: ['i32', 'f64', 'i32', 'i32', 'i32', 'i32', 'f32', 'i32', 'i32'],
    results: ['i32'],
    locals,
    body,
  };
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
  for (let j = 0; j < 8; j++)
    step.push(
      ...I.get(acc[j % 4]),
      ...I.get(ptr),
      ...I.v128Load(j * 16),
      ...I.v128Or(),
      ...I.set(acc[j % 4]),
    );
  const body = [
    ...I.get(ptr),
    ...I.get(len),
    ...I.i32Add(),
    ...I.set(end),
    ...I.block(),
    ...I.get(len),
    ...I.i32Eqz(),
    ...I.brIf(0),
    ...I.loop(),
    ...step,
    ...advance(ptr, 128),
    ...I.get(ptr),
    ...I.get(end),
    ...I.i32Ne(),
    ...I.brIf(0),
    ...I.end(),
    ...I.end(),
    ...I.get(a0),
    ...I.get(a1),
    ...I.v128Or(),
    ...I.get(a2),
    ...I.get(a3),
    ...I.v128Or(),
    ...I.v128Or(),
    ...I.set(a0),
    ...I.get(a0),
    ...I.i64x2ExtractLane(0),
    ...I.get(a0),
    ...I.i64x2ExtractLane(1),
    ...I.i64Or(),
  ];
  return {
    name: 'read_or',
    params: ['i32', 'i32'],
    results: ['i64'],
    locals: ['i32', 'v128', 'v128', 'v128', 'v128'],
    body,
  };
}

/** The kernel module's bytes (imports env.memory, shared). */
export function kernelModuleBytes(): Uint8Array {
  return encodeModule([
    tanimotoRange(),
    tanimotoAbove(),
    centroidAbove(),
    readOr(),
    blockBits(),
    screenRows(1),
    screenRows(2),
    screenRows(3),
    tanimotoRows(),
  ]);
}
