/**
 * The pair states a build learnt for a ring-bound reaction (ring-bound.ts), stored with the space
 * (format 6), so a search never asks RDKit about a pair of ring cores. Before, the first query to
 * meet a pair paid an RDKit zip, a perception and a valence check for it: aspirin's exact top 100
 * over the AutoGrow4 Fischer indole and Friedlaender reactions took 11.4 s on a fresh thread and
 * 2.2 s on a warm one, 2026-11-29 (the Fischer reaction alone has 113,565 pairs of cores). The
 * table also names the pairs molzip cannot join, so the walk proposes none of their tuples.
 *
 * Layout, little-endian: magic `MSRP`, u32 version, u32 synthon counts n0 n1, u32 core counts
 * c0 c1; i32 core index per synthon of slot 0 then slot 1 (−1: no core); i32 per pair of cores
 * (c0 × c1, row-major): the byte offset of its state in the blob, or PAIR_RDKIT / PAIR_INVALID;
 * then the blob. A state is, per slot, u16 atom count L and L aromatic, L hydrogen and L charge
 * bytes, then u16 bond count and per bond u32 key and u8 type (PairState, ring-zip.ts).
 */
import type { SlotColumns } from './format.ts';

/** The pair's tuples take RDKit's path (its state could not be learnt or disagreed with RDKit). */
export const PAIR_RDKIT = -1;
/** molzip cannot join the pair's tuples: every one is an invalid assembly. */
export const PAIR_INVALID = -2;
/** A synthon of the tuple has no ring core (or the reaction has no table). */
export const PAIR_NONE = -3;

const MAGIC = 0x5052534d; // 'MSRP'
const VERSION = 1;

/** The per-pair states of one slot's cores, as ring-zip.ts keeps them. */
export interface StoredState {
  aromatic: Uint8Array[];
  hs: Uint8Array[];
  charge: Int8Array[];
  bonds: Map<number, number>;
}

export interface RingPairs {
  /** Per slot, the core index of each synthon (−1: none). */
  core: [Int32Array, Int32Array];
  cores: [number, number];
  /** Per pair of cores (row-major): blob offset, PAIR_RDKIT or PAIR_INVALID. */
  entry: Int32Array;
  blob: Uint8Array;
  /** Decoded states by offset (filled on use). */
  decoded: Map<number, StoredState>;
}

/** A pair's stored outcome for the build: its state, RDKit's path (null) or 'invalid'. */
export type PairOutcome = StoredState | null | 'invalid';

function encodeState(st: StoredState): Uint8Array {
  const len = st.aromatic.reduce((n, a) => n + 2 + 3 * a.length, 2 + 5 * st.bonds.size);
  const out = new Uint8Array(len);
  const dv = new DataView(out.buffer);
  let o = 0;
  for (let s = 0; s < st.aromatic.length; s++) {
    const n = st.aromatic[s].length;
    dv.setUint16(o, n, true);
    out.set(st.aromatic[s], o + 2);
    out.set(st.hs[s], o + 2 + n);
    out.set(new Uint8Array(st.charge[s].buffer, st.charge[s].byteOffset, n), o + 2 + 2 * n);
    o += 2 + 3 * n;
  }
  dv.setUint16(o, st.bonds.size, true);
  o += 2;
  for (const [key, type] of st.bonds) {
    dv.setUint32(o, key, true);
    out[o + 4] = type;
    o += 5;
  }
  return out;
}

function decodeState(blob: Uint8Array, at: number, slots: number): StoredState {
  const dv = new DataView(blob.buffer, blob.byteOffset, blob.byteLength);
  const st: StoredState = { aromatic: [], hs: [], charge: [], bonds: new Map() };
  let o = at;
  for (let s = 0; s < slots; s++) {
    const n = dv.getUint16(o, true);
    // Copies (a Buffer's slice would share the file's memory); Int8Array wraps 255 to −1.
    st.aromatic.push(new Uint8Array(blob.subarray(o + 2, o + 2 + n)));
    st.hs.push(new Uint8Array(blob.subarray(o + 2 + n, o + 2 + 2 * n)));
    st.charge.push(new Int8Array(blob.subarray(o + 2 + 2 * n, o + 2 + 3 * n)));
    o += 2 + 3 * n;
  }
  const nb = dv.getUint16(o, true);
  o += 2;
  for (let b = 0; b < nb; b++, o += 5) st.bonds.set(dv.getUint32(o, true), blob[o + 4]);
  return st;
}

/**
 * The file of a two-slot reaction: `core` gives each synthon's core index, `outcome(a, b)` the
 * outcome of cores a and b. Equal states are stored once.
 */
export function encodeRingPairs(
  core: [Int32Array, Int32Array],
  cores: [number, number],
  outcome: (a: number, b: number) => PairOutcome,
): Uint8Array {
  const entry = new Int32Array(cores[0] * cores[1]);
  const parts: Uint8Array[] = [];
  const seen = new Map<string, number>();
  let size = 0;
  for (let a = 0; a < cores[0]; a++)
    for (let b = 0; b < cores[1]; b++) {
      const out = outcome(a, b);
      if (out === 'invalid' || out === null) {
        entry[a * cores[1] + b] = out === null ? PAIR_RDKIT : PAIR_INVALID;
        continue;
      }
      const bytes = encodeState(out);
      const key = Buffer.from(bytes).toString('latin1');
      let at = seen.get(key);
      if (at === undefined) {
        seen.set(key, (at = size));
        parts.push(bytes);
        size += bytes.length;
      }
      entry[a * cores[1] + b] = at;
    }
  const head = 24 + 4 * (core[0].length + core[1].length + entry.length);
  const out = new Uint8Array(head + size);
  const dv = new DataView(out.buffer);
  [MAGIC, VERSION, core[0].length, core[1].length, cores[0], cores[1]].forEach((v, k) =>
    dv.setUint32(4 * k, v, true),
  );
  let o = 24;
  for (const arr of [core[0], core[1], entry]) {
    for (let k = 0; k < arr.length; k++) dv.setInt32(o + 4 * k, arr[k], true);
    o += 4 * arr.length;
  }
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

export function decodeRingPairs(bytes: Uint8Array): RingPairs {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const [magic, version, n0, n1, c0, c1] = [0, 1, 2, 3, 4, 5].map((k) => dv.getUint32(4 * k, true));
  if (magic !== MAGIC || version !== VERSION) throw new Error('not a ring-pair table (version 1)');
  let o = 24;
  const ints = (n: number): Int32Array => {
    const a = new Int32Array(n);
    for (let k = 0; k < n; k++) a[k] = dv.getInt32(o + 4 * k, true);
    o += 4 * n;
    return a;
  };
  const core: [Int32Array, Int32Array] = [ints(n0), ints(n1)];
  const entry = ints(c0 * c1);
  return { core, cores: [c0, c1], entry, blob: bytes.subarray(o), decoded: new Map() };
}

/** The stored tables by a reaction's first slot (openSpace attaches them; ring-zip.ts reads). */
const tables = new WeakMap<SlotColumns, RingPairs>();

export function attachRingPairs(slots: readonly SlotColumns[], pairs: RingPairs): void {
  if (
    pairs.core[0].length !== slots[0].synthonIds.length ||
    pairs.core[1].length !== slots[1].synthonIds.length
  )
    throw new Error('ring-pair table does not match the reaction');
  tables.set(slots[0], pairs);
}

export function ringPairsOf(slots: readonly SlotColumns[]): RingPairs | undefined {
  return slots.length === 2 ? tables.get(slots[0]) : undefined;
}

/** The stored entry of a tuple: a blob offset, PAIR_RDKIT, PAIR_INVALID or PAIR_NONE. */
export function pairEntry(p: RingPairs, i: number, j: number): number {
  const a = p.core[0][i];
  const b = p.core[1][j];
  return a < 0 || b < 0 ? PAIR_NONE : p.entry[a * p.cores[1] + b];
}

/**
 * The state at a blob offset, decoded afresh and not kept (ring-side.ts reads every state a walk
 * meets once: kept, the Fischer indole's 113,565 would be ~100 MB of small typed arrays).
 */
export function readState(p: RingPairs, at: number): StoredState {
  return p.decoded.get(at) ?? decodeState(p.blob, at, 2);
}

/** The state at a blob offset (pairEntry ≥ 0), decoded once. */
export function storedState(p: RingPairs, at: number): StoredState {
  let st = p.decoded.get(at);
  if (!st) p.decoded.set(at, (st = decodeState(p.blob, at, 2)));
  return st;
}
