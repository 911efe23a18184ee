/**
 * Thread entry of the search pool. It instantiates the kernel on each shared arena memory it is
 * sent (no bytes are copied: the shard files already sit in those memories), remembers where
 * each shard's columns are, and answers scan requests with exact per-segment top-k lists.
 */
import { instantiateKernel, type Kernel } from './kernel.ts';
import { SLOT, scanTopK, type ShardRef } from './scan.ts';
import type { PoolMessage, ScanReply } from './pool-protocol.ts';
import { serveThread, withTransfer } from '../threads/thread.ts';

serveThread<PoolMessage, ScanReply | null>((data) => {
  const { slot, blockBound } = data as { slot: number; blockBound: boolean };
  const arenas = new Map<number, { kernel: Kernel; slotPtr: number }>();
  const shards = new Map<string, { arena: number; ref: ShardRef }>();
  return {
    handle(msg) {
      switch (msg.t) {
        case 'arena':
          arenas.set(msg.arena, { kernel: instantiateKernel(msg.memory), slotPtr: slot * SLOT.bytes });
          return null;
        case 'shards':
          for (const s of msg.shards)
            shards.set(`${msg.catalog}/${s.index}`, {
              arena: s.arena,
              ref: { fpPtr: s.fpPtr, pcPtr: s.pcPtr, rows: s.rows, offsets: s.offsets, blkPtr: s.blkPtr },
            });
          return null;
        case 'drop':
          for (const key of [...shards.keys()]) if (key.startsWith(`${msg.catalog}/`)) shards.delete(key);
          for (const a of msg.arenas) arenas.delete(a);
          return null;
        case 'scan': {
          const shard = shards.get(`${msg.catalog}/${msg.shard}`);
          const arena = shard && arenas.get(shard.arena);
          if (!shard || !arena)
            throw new Error(`shard ${msg.catalog}/${msg.shard} is not loaded in this thread`);
          let scanned = 0;
          let touched = 0;
          const results = msg.queries.map((q, i) => {
            const r = scanTopK(arena.kernel, arena.slotPtr, shard.ref, q, {
              k: msg.k,
              threshold: msg.threshold,
              floor: msg.floors[i],
              rowStart: msg.rowStart,
              rowEnd: msg.rowEnd,
              blockBound,
            });
            scanned += r.scanned;
            touched += r.touched;
            return { rows: r.rows, scores: r.scores };
          });
          return withTransfer(
            { results, scanned, touched },
            results.flatMap((r) => [r.rows.buffer as ArrayBuffer, r.scores.buffer as ArrayBuffer]),
          );
        }
      }
    },
  };
});
