/**
 * Worker-thread entry of the search pool. It instantiates the kernel on each shared arena memory
 * it is sent (no bytes are copied: the shard files already sit in those memories), remembers where
 * each shard's columns are, and answers scan tasks with exact per-segment top-k lists.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { instantiateKernel, type Kernel } from './kernel.ts';
import { SLOT, scanTopK, type ShardRef } from './scan.ts';
import type { PoolMessage, ScanReply } from './pool-protocol.ts';

if (!parentPort) throw new Error('pool-worker.ts must run as a worker thread');
const port = parentPort;
const { slot, blockBound } = workerData as { slot: number; blockBound: boolean };
const arenas = new Map<number, { kernel: Kernel; slotPtr: number }>();
const shards = new Map<string, { arena: number; ref: ShardRef }>();

port.on('message', (msg: PoolMessage) => {
  switch (msg.t) {
    case 'arena':
      arenas.set(msg.arena, { kernel: instantiateKernel(msg.memory), slotPtr: slot * SLOT.bytes });
      port.postMessage({ t: 'ack', id: msg.id });
      return;
    case 'shards':
      for (const s of msg.shards)
        shards.set(`${msg.catalog}/${s.index}`, {
          arena: s.arena,
          ref: { fpPtr: s.fpPtr, pcPtr: s.pcPtr, rows: s.rows, offsets: s.offsets, blkPtr: s.blkPtr },
        });
      port.postMessage({ t: 'ack', id: msg.id });
      return;
    case 'drop':
      for (const key of [...shards.keys()]) if (key.startsWith(`${msg.catalog}/`)) shards.delete(key);
      for (const a of msg.arenas) arenas.delete(a);
      port.postMessage({ t: 'ack', id: msg.id });
      return;
    case 'scan': {
      try {
        const shard = shards.get(`${msg.catalog}/${msg.shard}`);
        const arena = shard && arenas.get(shard.arena);
        if (!shard || !arena)
          throw new Error(`shard ${msg.catalog}/${msg.shard} is not loaded in this worker`);
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
        const reply: ScanReply = { t: 'done', id: msg.id, results, scanned, touched };
        port.postMessage(
          reply,
          results.flatMap((r) => [r.rows.buffer as ArrayBuffer, r.scores.buffer as ArrayBuffer]),
        );
      } catch (err) {
        port.postMessage({
          t: 'error',
          id: msg.id,
          message: err instanceof Error ? err.message : String(err),
        });
      }
      return;
    }
  }
});
