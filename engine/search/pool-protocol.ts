/** Messages between the search pool and its worker threads (structured-clone plain data). */
import type { WasmMemory } from './wasm/wasm-api.ts';
import type { PreparedQuery } from './query.ts';

export interface ArenaMessage {
  t: 'arena';
  id: number;
  arena: number;
  memory: WasmMemory;
}
export interface ShardsMessage {
  t: 'shards';
  id: number;
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
  id: number;
  catalog: string;
  arenas: number[];
}
export interface ScanMessage {
  t: 'scan';
  id: number;
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

export interface ScanReply {
  t: 'done';
  id: number;
  results: { rows: Int32Array; scores: Float32Array }[];
  scanned: number;
  touched: number;
}
export type WorkerReply = ScanReply | { t: 'ack'; id: number } | { t: 'error'; id: number; message: string };
