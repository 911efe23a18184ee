/** Requests of the search pool to its threads and their replies (structured-clone plain data). */
import type { WasmMemory } from './wasm/wasm-api.ts';
import type { PreparedQuery } from './query.ts';

/** Registers a shared arena memory: the thread instantiates the kernel over it (nothing is copied). */
export interface ArenaMessage {
  t: 'arena';
  arena: number;
  memory: WasmMemory;
}
/** Where each shard's columns sit in the arenas. */
export interface ShardsMessage {
  t: 'shards';
  catalog: string;
  shards: {
    index: number;
    arena: number;
    fpPtr: number;
    pcPtr: number;
    rows: number;
    offsets: Int32Array;
    blkPtr?: number;
  }[];
}
export interface DropMessage {
  t: 'drop';
  catalog: string;
  arenas: number[];
}
export interface ScanMessage {
  t: 'scan';
  catalog: string;
  shard: number;
  rowStart: number;
  rowEnd: number;
  queries: PreparedQuery[];
  k: number;
  threshold?: number;
  /** Per query: the k-th score already known from other segments (inclusive floor). */
  floors: number[];
}
export type PoolMessage = ArenaMessage | ShardsMessage | DropMessage | ScanMessage;

/** The reply to a scan (registration messages answer null). */
export interface ScanReply {
  results: { rows: Int32Array; scores: Float32Array }[];
  scanned: number;
  touched: number;
}
