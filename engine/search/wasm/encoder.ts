/**
 * A minimal WebAssembly binary encoder: just enough to emit the search kernels from TypeScript, so
 * the repo carries readable kernel source instead of an opaque .wasm blob and needs no wabt.
 * Instructions are plain byte arrays composed with spread syntax (see kernel-source.ts).
 */

export const VALTYPE = { i32: 0x7f, i64: 0x7e, f32: 0x7d, f64: 0x7c, v128: 0x7b } as const;
export type ValType = keyof typeof VALTYPE;

/** Unsigned LEB128 of a non-negative integer below 2^32. */
export function uleb(n: number): number[] {
  const out: number[] = [];
  let v = n >>> 0;
  do {
    let byte = v & 0x7f;
    v >>>= 7;
    if (v !== 0) byte |= 0x80;
    out.push(byte);
  } while (v !== 0);
  return out;
}

/** Signed LEB128 of a 32-bit or 64-bit integer. */
export function sleb(n: number | bigint): number[] {
  const out: number[] = [];
  let v = BigInt(n);
  for (;;) {
    const byte = Number(v & 0x7fn);
    v >>= 7n;
    const done = (v === 0n && (byte & 0x40) === 0) || (v === -1n && (byte & 0x40) !== 0);
    out.push(done ? byte : byte | 0x80);
    if (done) return out;
  }
}

function f32Bytes(x: number): number[] {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setFloat32(0, x, true);
  return [...b];
}

function f64Bytes(x: number): number[] {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setFloat64(0, x, true);
  return [...b];
}

const memarg = (align: number, offset: number): number[] => [...uleb(align), ...uleb(offset)];
const simd = (code: number): number[] => [0xfd, ...uleb(code)];

/** The instructions the kernels use; each returns its encoded bytes. */
export const I = {
  block: (): number[] => [0x02, 0x40],
  loop: (): number[] => [0x03, 0x40],
  if: (): number[] => [0x04, 0x40],
  end: (): number[] => [0x0b],
  br: (depth: number): number[] => [0x0c, ...uleb(depth)],
  brIf: (depth: number): number[] => [0x0d, ...uleb(depth)],
  return: (): number[] => [0x0f],
  select: (): number[] => [0x1b],
  get: (local: number): number[] => [0x20, ...uleb(local)],
  set: (local: number): number[] => [0x21, ...uleb(local)],
  tee: (local: number): number[] => [0x22, ...uleb(local)],
  i32Load16U: (offset = 0): number[] => [0x2f, ...memarg(1, offset)],
  i64Load: (offset = 0): number[] => [0x29, ...memarg(3, offset)],
  f64Load: (offset = 0): number[] => [0x2b, ...memarg(3, offset)],
  i32Load: (offset = 0): number[] => [0x28, ...memarg(2, offset)],
  i32Store: (offset = 0): number[] => [0x36, ...memarg(2, offset)],
  i32Store8: (offset = 0): number[] => [0x3a, ...memarg(0, offset)],
  i64Store: (offset = 0): number[] => [0x37, ...memarg(3, offset)],
  f32Store: (offset = 0): number[] => [0x38, ...memarg(2, offset)],
  i32Const: (v: number): number[] => [0x41, ...sleb(v)],
  i64Const: (v: number | bigint): number[] => [0x42, ...sleb(v)],
  f32Const: (v: number): number[] => [0x43, ...f32Bytes(v)],
  f64Const: (v: number): number[] => [0x44, ...f64Bytes(v)],
  i32Eqz: (): number[] => [0x45],
  i32Ne: (): number[] => [0x47],
  i32LtU: (): number[] => [0x49],
  i32GtU: (): number[] => [0x4b],
  i32GeS: (): number[] => [0x4e],
  i32GeU: (): number[] => [0x4f],
  i64Eqz: (): number[] => [0x50],
  f32Ge: (): number[] => [0x60],
  f64Eq: (): number[] => [0x61],
  i32Add: (): number[] => [0x6a],
  i32Sub: (): number[] => [0x6b],
  i32Mul: (): number[] => [0x6c],
  i32Xor: (): number[] => [0x73],
  i32Shl: (): number[] => [0x74],
  i32ShrU: (): number[] => [0x76],
  i32And: (): number[] => [0x71],
  i32Or: (): number[] => [0x72],
  i32Popcnt: (): number[] => [0x69],
  i64Ctz: (): number[] => [0x7a],
  i64Popcnt: (): number[] => [0x7b],
  i64Add: (): number[] => [0x7c],
  i64Sub: (): number[] => [0x7d],
  i64And: (): number[] => [0x83],
  i64Or: (): number[] => [0x84],
  i64Shl: (): number[] => [0x86],
  i64ExtendI32U: (): number[] => [0xad],
  f32Div: (): number[] => [0x95],
  f64Add: (): number[] => [0xa0],
  f64Sub: (): number[] => [0xa1],
  f64Div: (): number[] => [0xa3],
  i32WrapI64: (): number[] => [0xa7],
  f32ConvertI32U: (): number[] => [0xb3],
  f32DemoteF64: (): number[] => [0xb6],
  f64ConvertI32U: (): number[] => [0xb8],
  v128Load: (offset = 0): number[] => [...simd(0x00), ...memarg(4, offset)],
  v128And: (): number[] => simd(0x4e),
  i8x16Eq: (): number[] => simd(0x23),
  i8x16Bitmask: (): number[] => simd(0x64),
  v128Or: (): number[] => simd(0x50),
  i8x16Popcnt: (): number[] => simd(0x62),
  i8x16Add: (): number[] => simd(0x6e),
  i8x16MinU: (): number[] => simd(0x77),
  i16x8ExtaddPairwiseI8x16U: (): number[] => simd(0x7d),
  i32x4ExtaddPairwiseI16x8U: (): number[] => simd(0x7f),
  i32x4Splat: (): number[] => simd(0x11),
  i32x4ExtractLane: (lane: number): number[] => [...simd(0x1b), lane],
  i64x2ExtractLane: (lane: number): number[] => [...simd(0x1d), lane],
  i32x4Add: (): number[] => simd(0xae),
} as const;

/** One function of the module: its signature, extra locals (after the params) and body. */
export interface FuncDef {
  name: string;
  params: ValType[];
  results: ValType[];
  locals: ValType[];
  body: number[];
}

function section(id: number, payload: number[]): number[] {
  return [id, ...uleb(payload.length), ...payload];
}

function vec(items: number[][]): number[] {
  return [...uleb(items.length), ...items.flat()];
}

function nameBytes(s: string): number[] {
  const b = [...new TextEncoder().encode(s)];
  return [...uleb(b.length), ...b];
}

/**
 * Encodes a module that imports one shared memory as env.memory (limits min 1, max 65536 pages)
 * and exports every function under its name. Each function gets its own type entry.
 */
export function encodeModule(funcs: FuncDef[]): Uint8Array {
  const types = funcs.map((f) => [
    0x60,
    ...vec(f.params.map((t) => [VALTYPE[t]])),
    ...vec(f.results.map((t) => [VALTYPE[t]])),
  ]);
  const memImport = [...nameBytes('env'), ...nameBytes('memory'), 0x02, 0x03, ...uleb(1), ...uleb(65536)];
  const funcIdx = funcs.map((_, i) => uleb(i));
  const exports = funcs.map((f, i) => [...nameBytes(f.name), 0x00, ...uleb(i)]);
  const codes = funcs.map((f) => {
    const locals = vec(f.locals.map((t) => [...uleb(1), VALTYPE[t]]));
    const body = [...locals, ...f.body, 0x0b];
    return [...uleb(body.length), ...body];
  });
  const bytes = [
    0x00,
    0x61,
    0x73,
    0x6d,
    0x01,
    0x00,
    0x00,
    0x00,
    ...section(1, vec(types)),
    ...section(2, vec([memImport])),
    ...section(3, vec(funcIdx)),
    ...section(7, vec(exports)),
    ...section(10, vec(codes)),
  ];
  return Uint8Array.from(bytes);
}
