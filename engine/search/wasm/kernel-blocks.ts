/**
 * Block-bound kernels. A 2048-bit row is split into BLOCK_BYTES blocks of 2048 / BLOCK_BYTES
 * contiguous bits; the catalog loader stores each row's block popcounts as BLOCK_BYTES u8 (row
 * major, one contiguous array per shard, in the same memory as the shard). For a query with block
 * popcounts qa_j and a row with b_j, the intersection c <= m = sum_j min(qa_j, b_j), so the row's
 * Tanimoto is at most m / (a + b - m). tanimoto_above_blocks reads only those BLOCK_BYTES bytes for
 * every row and the 256-byte fingerprint only for rows whose m reaches the caller's minimum, which
 * is what makes it faster than tanimoto_above on a memory-bound scan.
 */
import { I, type FuncDef, type ValType } from './encoder.ts';
import { ROW_BYTES, WORDS, earlyReturn, popcntTree, ptrAt } from './kernel-parts.ts';

/**
 * Bytes of block popcounts per row: 64 blocks of 32 bits (a count is at most 32, and four of them
 * summed per lane at most 128, so u8 lanes never overflow). Measured on the 1M benchmark, k=100
 * (docs/search.md): 16 blocks left 65% of the rows to read, 32 blocks 44%, 64 blocks 20%; 64 was
 * the fastest despite reading 64 bytes per rejected row. Supported values: 16, 32, 64.
 */
export const BLOCK_BYTES = 64 as 16 | 32 | 64;
const BLOCK_SHIFT = Math.log2(BLOCK_BYTES);
/** v128 loads per row in pass 1. */
const VECS = BLOCK_BYTES / 16;

/** block_popcounts(fp, start, end, out): out[row * BLOCK_BYTES + j] = popcount of block j of row, for rows [start, end). */
export function blockPopcounts(): FuncDef {
  const [fp, start, end, out, p, pend, o] = [0, 1, 2, 3, 4, 5, 6];
  const row: number[] = [];
  for (let j = 0; j < BLOCK_BYTES; j++) {
    row.push(...I.get(o));
    if (BLOCK_BYTES === 64) row.push(...I.get(p), ...I.i32Load(j * 4), ...I.i32Popcnt());
    else {
      const words = WORDS / BLOCK_BYTES;
      for (let w = 0; w < words; w++) {
        row.push(...I.get(p), ...I.i64Load((j * words + w) * 8), ...I.i64Popcnt());
        if (w > 0) row.push(...I.i64Add());
      }
      row.push(...I.i32WrapI64());
    }
    row.push(...I.i32Store8(j));
  }
  const body = [
    ...earlyReturn(start, end),
    ...ptrAt(fp, start, 8, p),
    ...ptrAt(fp, end, 8, pend),
    ...ptrAt(out, start, BLOCK_SHIFT, o),
    ...I.loop(),
    ...row,
    ...I.get(o),
    ...I.i32Const(BLOCK_BYTES),
    ...I.i32Add(),
    ...I.set(o),
    ...I.get(p),
    ...I.i32Const(ROW_BYTES),
    ...I.i32Add(),
    ...I.tee(p),
    ...I.get(pend),
    ...I.i32Ne(),
    ...I.brIf(0),
    ...I.end(),
  ];
  return {
    name: 'block_popcounts',
    params: ['i32', 'i32', 'i32', 'i32'],
    results: [],
    locals: ['i32', 'i32', 'i32'],
    body,
  };
}

/**
 * tanimoto_above_blocks(q, fp, pc, blk, qblk, start, end, a, min, mNeed, outRows, outScores) -> packed:
 * the rows of [start, end) whose score is >= min (f32) and their scores, in row order, exactly as
 * tanimoto_above returns them, provided every row with score >= min has m >= mNeed (the caller
 * derives mNeed from min, see minIntersection). Pass 1 reads the block popcounts (blk, BLOCK_BYTES
 * per row; qblk = the query's) and appends, branch-free, the rows with m >= mNeed to outRows; pass
 * 2 scores those candidates from their fingerprints and compacts the qualifying ones in place.
 * Returns n | (candidates << 16) (end - start must stay below 65536).
 */
export function tanimotoAboveBlocks(): FuncDef {
  const [q, fp, pc, blk, qblk, start, end, a, min, mNeed, outRows, outScores] = [
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
  ];
  const [p, pend, i, n4, v, j4, o4, row, rp, c, d, s, qv] = [
    12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24,
  ];
  // VECS 16-byte slices, lane-wise min with the query's, summed lane-wise: a lane then holds at most
  // 2048 / 16 = 128 (VECS block counts of 128 / VECS bits each), so the i8 adds cannot overflow.
  const minSum: number[] = [];
  const loadQuery: number[] = [];
  for (let h = 0; h < VECS; h++) {
    minSum.push(
      ...I.get(p),
      ...I.v128Load(16 * h),
      ...I.get(qv + h),
      ...I.i8x16MinU(),
      ...(h > 0 ? I.i8x16Add() : []),
    );
    loadQuery.push(...I.get(qblk), ...I.v128Load(16 * h), ...I.set(qv + h));
  }
  const pass1 = [
    ...loadQuery,
    ...ptrAt(blk, start, BLOCK_SHIFT, p),
    ...ptrAt(blk, end, BLOCK_SHIFT, pend),
    ...I.get(start),
    ...I.set(i),
    ...I.loop(),
    ...I.get(outRows),
    ...I.get(n4),
    ...I.i32Add(),
    ...I.get(i),
    ...I.i32Store(),
    ...minSum,
    ...I.i16x8ExtaddPairwiseI8x16U(),
    ...I.i32x4ExtaddPairwiseI16x8U(),
    ...I.tee(v),
    ...I.i32x4ExtractLane(0),
    ...I.get(v),
    ...I.i32x4ExtractLane(1),
    ...I.i32Add(),
    ...I.get(v),
    ...I.i32x4ExtractLane(2),
    ...I.get(v),
    ...I.i32x4ExtractLane(3),
    ...I.i32Add(),
    ...I.i32Add(),
    ...I.get(mNeed),
    ...I.i32GeS(),
    ...I.i32Const(2),
    ...I.i32Shl(),
    ...I.get(n4),
    ...I.i32Add(),
    ...I.set(n4),
    ...I.get(i),
    ...I.i32Const(1),
    ...I.i32Add(),
    ...I.set(i),
    ...I.get(p),
    ...I.i32Const(BLOCK_BYTES),
    ...I.i32Add(),
    ...I.tee(p),
    ...I.get(pend),
    ...I.i32Ne(),
    ...I.brIf(0),
    ...I.end(),
  ];
  // Slot o4 <= j4 is written only after candidate j4 was read, so compacting in place is safe.
  const pass2 = [
    ...I.block(),
    ...I.get(n4),
    ...I.i32Eqz(),
    ...I.brIf(0),
    ...I.loop(),
    ...I.get(outRows),
    ...I.get(j4),
    ...I.i32Add(),
    ...I.i32Load(),
    ...I.tee(row),
    ...I.i32Const(8),
    ...I.i32Shl(),
    ...I.get(fp),
    ...I.i32Add(),
    ...I.set(rp),
    ...popcntTree(q, rp, 0, WORDS),
    ...I.i32WrapI64(),
    ...I.tee(c),
    ...I.f32ConvertI32U(),
    ...I.get(a),
    ...I.get(pc),
    ...I.get(row),
    ...I.i32Const(1),
    ...I.i32Shl(),
    ...I.i32Add(),
    ...I.i32Load16U(),
    ...I.i32Add(),
    ...I.get(c),
    ...I.i32Sub(),
    ...I.tee(d),
    ...I.get(d),
    ...I.i32Eqz(),
    ...I.i32Add(),
    ...I.f32ConvertI32U(),
    ...I.f32Div(),
    ...I.set(s),
    ...I.get(outRows),
    ...I.get(o4),
    ...I.i32Add(),
    ...I.get(row),
    ...I.i32Store(),
    ...I.get(outScores),
    ...I.get(o4),
    ...I.i32Add(),
    ...I.get(s),
    ...I.f32Store(),
    ...I.get(o4),
    ...I.get(s),
    ...I.get(min),
    ...I.f32Ge(),
    ...I.i32Const(2),
    ...I.i32Shl(),
    ...I.i32Add(),
    ...I.set(o4),
    ...I.get(j4),
    ...I.i32Const(4),
    ...I.i32Add(),
    ...I.tee(j4),
    ...I.get(n4),
    ...I.i32Ne(),
    ...I.brIf(0),
    ...I.end(),
    ...I.end(),
  ];
  const body = [
    ...earlyReturn(start, end, I.i32Const(0)),
    ...pass1,
    ...pass2,
    ...I.get(o4),
    ...I.i32Const(2),
    ...I.i32ShrU(),
    ...I.get(n4),
    ...I.i32Const(14),
    ...I.i32Shl(),
    ...I.i32Or(),
  ];
  const locals: ValType[] = [
    'i32',
    'i32',
    'i32',
    'i32',
    'v128',
    'i32',
    'i32',
    'i32',
    'i32',
    'i32',
    'i32',
    'f32',
    ...Array<ValType>(VECS).fill('v128'),
  ];
  return {
    name: 'tanimoto_above_blocks',
    params: ['i32', 'i32', 'i32', 'i32', 'i32', 'i32', 'i32', 'i32', 'f32', 'i32', 'i32', 'i32'],
    results: ['i32'],
    locals,
    body,
  };
}
