/**
 * A scan worker's part in the fleet (docs/scaling.md): it rewrites its membership record in the
 * object store every heartbeat (its queue, capacity and the shards it holds in memory), computes
 * its share of every published catalog by rendezvous hashing over the live members, and prefetches
 * that share into its shard cache up to its memory budget, announcing after each shard it loads.
 * On stop it deletes its record, so it leaves the placement at once rather than after the
 * staleness window.
 */
import { hostname } from 'node:os';
import type { Logger } from '../platform/logger.ts';
import {
  MEMBER_FORMAT,
  listMembers,
  removeMember,
  writeMember,
  type FleetMember,
  type MemberStore,
} from '../engine/fleet/members.ts';
import { assignShards } from '../engine/fleet/placement.ts';
import type { PublishedShardCache } from '../activities/shards-published.ts';

/** Memory a loaded shard takes per row (file ≈ 530 B + screen 32 B), to stop prefetching in budget. */
const BYTES_PER_ROW = 560;

export interface AnnouncerOptions {
  objects: MemberStore;
  prefix: string;
  workerId: string;
  queue: string;
  capacityBytes: number;
  heartbeatMs: number;
  staleMs: number;
  published: PublishedShardCache;
  /** Catalog ids served (empty: every published catalog). */
  catalogs: string[];
  scanUrl?: string;
  log: Logger;
}

export interface Announcer {
  /** The record as last written. */
  member(): FleetMember;
  /** Resolves once the current prefetch pass is done (tests, benchmarks). */
  settled(): Promise<void>;
  stop(): Promise<void>;
}

export function startAnnouncer(opts: AnnouncerOptions): Announcer {
  const startedAt = new Date().toISOString();
  const record = (): FleetMember => {
    const held = opts.published.held();
    return {
      format: MEMBER_FORMAT,
      workerId: opts.workerId,
      queue: opts.queue,
      scanUrl: opts.scanUrl,
      capacityBytes: opts.capacityBytes,
      host: hostname(),
      pid: process.pid,
      startedAt,
      at: new Date().toISOString(),
      heldBytes: opts.published.stats().memory.bytes,
      held,
    };
  };
  let last = record();
  let stopped = false;
  let writing = Promise.resolve();
  const announce = (): Promise<void> => {
    if (stopped) return writing;
    last = record();
    const m = last;
    // Writes are serialised so an older record never lands after a newer one.
    writing = writing
      .then(() => writeMember(opts.objects, opts.prefix, m))
      .catch((err) => opts.log.warn({ err }, 'fleet: announcing failed'));
    return writing;
  };

  async function prefetchShare(): Promise<void> {
    const { live } = await listMembers(opts.objects, opts.prefix, opts.staleMs);
    const members = live.some((m) => m.workerId === opts.workerId) ? live : [...live, last];
    const ids = (await opts.published.published()).filter(
      (id) => !opts.catalogs.length || opts.catalogs.includes(id),
    );
    for (const id of ids) {
      const { manifest } = await opts.published.catalog(id);
      const mine = assignShards(id, manifest.shards.length, members).get(opts.workerId) ?? [];
      for (const i of mine) {
        if (stopped) return;
        if (opts.published.holds(id, i)) continue;
        const need = manifest.shards[i].rows * BYTES_PER_ROW;
        if (opts.published.stats().memory.bytes + need > opts.capacityBytes) {
          opts.log.warn({ catalog: id, shard: i }, 'fleet: share exceeds the shard memory budget');
          return;
        }
        try {
          await opts.published.shard(id, i);
        } catch (err) {
          // A shard that fails its checksum stays without a holder (and is reported by the scan
          // that needs it); the rest of the share is still loaded.
          opts.log.warn({ err, catalog: id, shard: i }, 'fleet: prefetching a shard failed');
          continue;
        }
        await announce();
      }
    }
  }

  let pass: Promise<void> | undefined;
  const tick = () => {
    void announce();
    pass ??= prefetchShare()
      .catch((err) => opts.log.warn({ err }, 'fleet: prefetching the share failed'))
      .finally(() => (pass = undefined));
  };
  tick();
  const timer = setInterval(tick, opts.heartbeatMs);
  timer.unref();
  return {
    member: () => last,
    settled: async () => {
      await pass;
      await announce();
    },
    async stop() {
      if (stopped) return;
      clearInterval(timer);
      await announce();
      stopped = true;
      await writing;
      await removeMember(opts.objects, opts.prefix, opts.workerId).catch(() => {});
    },
  };
}
