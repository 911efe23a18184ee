/**
 * Screening kernels: an exact upper bound on the intersection count from 32 bytes per row, read
 * before (and usually instead of) the row's 256 fingerprint bytes.
 *
 * A row's screen has one bit per fingerprint byte (256 blocks of 8 bits): bit j is set when byte j
 * of the row is non-zero. With qc_j the popcount of the query's byte j, the intersection
 * c = sum_j popcount(q_j & x_j) <= sum over the row's occupied blocks of qc_j. Writing
 * Q_t = {j : qc_j > t} (bit planes of the query counts), that sum is sum_t popcount(X & Q_t); the
 * kernels use planes 0 and 1 exactly and bound the rest by w * popcount(X & Q_2) with
 * w = max_j qc_j - 2 (every Q_t with t >= 2 is inside Q_2), so m = p0 + p1 + w * p2 >= c always.
 * Morgan rows set ~2% of their bits, so a block rarely holds two of them and the bound is tight:
 * on 802k real fingerprints it left 0.02-1.5% of the rows (median 0.03%) against a query's final
 * k-th score (k=100), where 64 blocks of 32-bit counts (64 bytes per row) left 0.04-52%.
 */
import { I, type FuncDef, type ValType } from './encoder.ts';
import { ROW_BYTES, earlyReturn, ptrAt } from './kernel-parts.ts';

/** Screen bytes per row (one bit per fingerprint byte). */
export const BLOCK_BYTES = 32;
const SCREEN_SHIFT = 5;

/** block_bits(fp, start, end, out): out + 32 * row = the screen of each row of [start, end). */
export function blockBits(): FuncDef {
  const [fp, start, end, out, p, pend, o, z] = [0, 1, 2, 3, 4, 5, 6, 7];
  const row: number[] = [];
  for (let w = 0; w < 4; w++) {
    row.push(...I.get(o));
    for (let h = 0; h < 4; h++) {
      // Bits of the non-zero bytes among 16: the inverted movemask of (bytes == 0).
      row.push(
        ...I.get(p),
        ...I.v128Load(16 * (4 * w + h)),
        ...I.get(z),
        ...I.i8x16Eq(),
        ...I.i8x16Bitmask(),
        ...I.i32Const(0xffff),
        ...I.i32Xor(),
        ...I.i64ExtendI32U(),
      );
      if (h > 0) row.push(...I.i64Const(16 * h), ...I.i64Shl(), ...I.i64Or());
    }
    row.push(...I.i64Store(8 * w));
  }
  const body = [
    ...earlyReturn(start, end),
    ...I.i32Const(0),
    ...I.i32x4Splat(),
    ...I.set(z),
    ...ptrAt(fp, start, 8, p),
    ...ptrAt(fp, end, 8, pend),
    ...ptrAt(out, start, SCREEN_SHIFT, o),
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
    name: 'block_bits',
    params: ['i32', 'i32', 'i32', 'i32'],
    results: [],
    locals: ['i32', 'i32', 'i32', 'v128'],
    body,
  };
}

/**
 * screen_rows_<planes>(scr, qp, start, end, need, w, outRows) -> n: appends to outRows (i32, in
 * row order) every row of [start, end) whose bound m = p0 + p1 + w * p2 (planes the variant does
 * not have count 0) is >= need, branch-free; qp holds the query planes Q_0, Q_1, Q_2 (32 bytes
 * each). Variants for 1, 2 and 3 planes: most queries need two (a byte with two query bits is
 * common, one with three is not).
 */
export function screenRows(planes: 1 | 2 | 3): FuncDef {
  const [scr, qp, start, end, need, w, outRows] = [0, 1, 2, 3, 4, 5, 6];
  const [p, pend, i, n4] = [7, 8, 9, 10];
  const x = [11, 12, 13, 14];
  const plane = (t: number, word: number): number => 15 + 4 * t + word;
  const loadPlanes: number[] = [];
  for (let t = 0; t < planes; t++)
    for (let word = 0; word < 4; word++)
      loadPlanes.push(...I.get(qp), ...I.i64Load(32 * t + 8 * word), ...I.set(plane(t, word)));
  // Sum over the four words of popcnt(x & plane) for the given planes, as a balanced i64 tree.
  const sum = (ts: number[]): number[] => {
    const terms = [0, 1, 2, 3].flatMap((word) =>
      ts.map((t) => [...I.get(x[word]), ...I.get(plane(t, word)), ...I.i64And(), ...I.i64Popcnt()]),
    );
    while (terms.length > 1) {
      const next: number[][] = [];
      for (let k = 0; k < terms.length; k += 2)
        next.push(k + 1 < terms.length ? [...terms[k], ...terms[k + 1], ...I.i64Add()] : terms[k]);
      terms.splice(0, terms.length, ...next);
    }
    return [...terms[0], ...I.i32WrapI64()];
  };
  const bound = [
    ...sum(planes >= 2 ? [0, 1] : [0]),
    ...(planes === 3 ? [...sum([2]), ...I.get(w), ...I.i32Mul(), ...I.i32Add()] : []),
  ];
  const body = [
    ...earlyReturn(start, end, I.i32Const(0)),
    ...loadPlanes,
    ...ptrAt(scr, start, SCREEN_SHIFT, p),
    ...ptrAt(scr, end, SCREEN_SHIFT, pend),
    ...I.get(start),
    ...I.set(i),
    ...I.loop(),
    ...I.get(outRows),
    ...I.get(n4),
    ...I.i32Add(),
    ...I.get(i),
    ...I.i32Store(),
    ...[0, 1, 2, 3].flatMap((word) => [...I.get(p), ...I.i64Load(8 * word), ...I.set(x[word])]),
    ...bound,
    ...I.get(need),
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
    ...I.get(n4),
    ...I.i32Const(2),
    ...I.i32ShrU(),
  ];
  const locals: ValType[] = [
    'i32',
    'i32',
    'i32',
    'i32',
    ...Array<ValType>(4).fill('i64'),
    ...Array<ValType>(4 * planes).fill('i64'),
  ];
  return {
    name: `screen_rows_${planes}`,
    params: ['i32', 'i32', 'i32', 'i32', 'i32', 'i32', 'i32'],
    results: ['i32'],
    locals,
    body,
  };
}
