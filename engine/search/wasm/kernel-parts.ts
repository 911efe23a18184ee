/**
 * Instruction sequences shared by the kernel sources (kernel-source.ts, kernel-blocks.ts).
 * Locals are passed by index; each helper returns encoded bytes to spread into a body.
 */
import { I } from './encoder.ts';

export const WORDS = 32;
export const ROW_BYTES = 256;

/**
 * Balanced sum tree of popcnt(q[w] & row[w]) for w in [lo, hi); keeps add chains short. The query
 * words are re-read from memory (L1-resident): measured faster than holding 32 i64 locals, which
 * V8 spills anyway, and faster than the i8x16.popcnt SIMD form on x64.
 */
export function popcntTree(qPtr: number, rowPtr: number, lo: number, hi: number): number[] {
  if (hi - lo === 1)
    return [
      ...I.get(qPtr),
      ...I.i64Load(lo * 8),
      ...I.get(rowPtr),
      ...I.i64Load(lo * 8),
      ...I.i64And(),
      ...I.i64Popcnt(),
    ];
  const mid = (lo + hi) >> 1;
  return [...popcntTree(qPtr, rowPtr, lo, mid), ...popcntTree(qPtr, rowPtr, mid, hi), ...I.i64Add()];
}

/** Sets p = base + idx * 2^shift. */
export function ptrAt(base: number, idx: number, shift: number, out: number): number[] {
  return [...I.get(base), ...I.get(idx), ...I.i32Const(shift), ...I.i32Shl(), ...I.i32Add(), ...I.set(out)];
}

/** Returns (with `value` on the stack, if any) when start >= end. */
export const earlyReturn = (start: number, end: number, value: number[] = []): number[] => [
  ...I.get(start),
  ...I.get(end),
  ...I.i32GeU(),
  ...I.if(),
  ...value,
  ...I.return(),
  ...I.end(),
];

/** local += by (i32). */
export const advance = (local: number, by: number): number[] => [
  ...I.get(local),
  ...I.i32Const(by),
  ...I.i32Add(),
  ...I.set(local),
];

/**
 * Scores a row whose intersection count is in local `c`: s = f32(c) / f32(a + b - c), with
 * d = a + b - c made 1 when 0 (then c is 0 too and the score 0, as in RDKit); stores the row index
 * and s at byte slot `n` of outRows / outScores and advances n by 4 only when s >= min
 * (branch-free append). `popcount` and `rowIndex` push the row's popcount and index.
 */
export function scoreAndAppend(
  l: {
    c: number;
    a: number;
    d: number;
    s: number;
    min: number;
    outRows: number;
    outScores: number;
    n: number;
  },
  popcount: number[],
  rowIndex: number[],
): number[] {
  return [
    ...I.get(l.c),
    ...I.f32ConvertI32U(),
    ...I.get(l.a),
    ...popcount,
    ...I.i32Add(),
    ...I.get(l.c),
    ...I.i32Sub(),
    ...I.tee(l.d),
    ...I.get(l.d),
    ...I.i32Eqz(),
    ...I.i32Add(),
    ...I.f32ConvertI32U(),
    ...I.f32Div(),
    ...I.set(l.s),
    ...I.get(l.outRows),
    ...I.get(l.n),
    ...I.i32Add(),
    ...rowIndex,
    ...I.i32Store(),
    ...I.get(l.outScores),
    ...I.get(l.n),
    ...I.i32Add(),
    ...I.get(l.s),
    ...I.f32Store(),
    ...I.get(l.n),
    ...I.get(l.s),
    ...I.get(l.min),
    ...I.f32Ge(),
    ...I.i32Const(2),
    ...I.i32Shl(),
    ...I.i32Add(),
    ...I.set(l.n),
  ];
}
