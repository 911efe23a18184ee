/**
 * Scoring a list of candidate rows (the rows a screen admitted, wasm/kernel-blocks.ts) from their
 * fingerprints.
 */
import { I, type FuncDef, type ValType } from './encoder.ts';
import { scoreAndAppend } from './kernel-parts.ts';

/**
 * tanimoto_rows(q, fp, pc, rows, count, a, min, outScores) -> n: scores the `count` rows listed at
 * `rows` (i32, ascending) and keeps, in place and in the same order, those scoring >= min (f32),
 * their scores at outScores. Candidates are sparse, so each is a fresh trip to DRAM: the main loop
 * takes four at a time with their loads interleaved (sharing each query load), so four rows' cache
 * misses are in flight together instead of one (measured ~2x on 1M rows); the rest go one by one.
 * Slot o <= j is written only after candidates j.. were read, so the compaction is safe.
 */
export function tanimotoRows(): FuncDef {
  const [q, fp, pc, rows, count, a, min, outScores] = [0, 1, 2, 3, 4, 5, 6, 7];
  const [j4, end4, o4, c, d, s, qv, x] = [8, 9, 10, 11, 12, 13, 14, 15];
  const row = [16, 17, 18, 19];
  const rp = [20, 21, 22, 23];
  const acc = [24, 25, 26, 27];
  /** Loads candidate j4 + 4r into row[r] and rp[r]. */
  const fetch = (r: number): number[] => [
    ...I.get(rows),
    ...I.get(j4),
    ...I.i32Add(),
    ...I.i32Load(4 * r),
    ...I.tee(row[r]),
    ...I.i32Const(8),
    ...I.i32Shl(),
    ...I.get(fp),
    ...I.i32Add(),
    ...I.set(rp[r]),
    ...I.i64Const(0),
    ...I.set(acc[r]),
  ];
  /** acc[r] += popcount of (query & row r) over the 16 slices, query slices loaded once for all `group` rows. */
  const counts = (group: number): number[] => {
    const out: number[] = [];
    for (let h = 0; h < 16; h++) {
      out.push(...I.get(q), ...I.v128Load(16 * h), ...I.set(qv));
      for (let r = 0; r < group; r++)
        out.push(
          ...I.get(qv),
          ...I.get(rp[r]),
          ...I.v128Load(16 * h),
          ...I.v128And(),
          ...I.tee(x),
          ...I.i64x2ExtractLane(0),
          ...I.i64Popcnt(),
          ...I.get(x),
          ...I.i64x2ExtractLane(1),
          ...I.i64Popcnt(),
          ...I.i64Add(),
          ...I.get(acc[r]),
          ...I.i64Add(),
          ...I.set(acc[r]),
        );
    }
    return out;
  };
  /** Scores row r from acc[r] and appends it at slot o4 (kept when the score reaches min). */
  const emit = (r: number): number[] => [
    ...I.get(acc[r]),
    ...I.i32WrapI64(),
    ...I.set(c),
    ...scoreAndAppend(
      { c, a, d, s, min, outRows: rows, outScores, n: o4 },
      [...I.get(pc), ...I.get(row[r]), ...I.i32Const(1), ...I.i32Shl(), ...I.i32Add(), ...I.i32Load16U()],
      I.get(row[r]),
    ),
  ];
  /** A loop taking `group` candidates per step while at least `group` remain. */
  const loop = (group: number): number[] => [
    ...I.block(),
    ...I.loop(),
    ...I.get(end4),
    ...I.get(j4),
    ...I.i32Sub(),
    ...I.i32Const(4 * group),
    ...I.i32LtU(),
    ...I.brIf(1),
    ...[...Array(group).keys()].flatMap(fetch),
    ...counts(group),
    ...[...Array(group).keys()].flatMap(emit),
    ...I.get(j4),
    ...I.i32Const(4 * group),
    ...I.i32Add(),
    ...I.set(j4),
    ...I.br(0),
    ...I.end(),
    ...I.end(),
  ];
  const body = [
    ...I.get(count),
    ...I.i32Const(2),
    ...I.i32Shl(),
    ...I.set(end4),
    ...loop(4),
    ...loop(1),
    ...I.get(o4),
    ...I.i32Const(2),
    ...I.i32ShrU(),
  ];
  const locals: ValType[] = [
    ...Array<ValType>(5).fill('i32'),
    'f32',
    'v128',
    'v128',
    ...Array<ValType>(8).fill('i32'),
    ...Array<ValType>(4).fill('i64'),
  ];
  return {
    name: 'tanimoto_rows',
    params: ['i32', 'i32', 'i32', 'i32', 'i32', 'i32', 'f32', 'i32'],
    results: ['i32'],
    locals,
    body,
  };
}
