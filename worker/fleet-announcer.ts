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
import { SHARD_BYTES_PER_ROW, assignBounded } from '../engine/fleet/placement.ts';
import type { PublishedShardCache } from '../activities/shards-published.ts';

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
    const catalogs = await Promise.all(
      ids.map(async (id) => ({
        id,
        shardBytes: (await opts.published.catalog(id)).manifest.shards.map(
          (s) => s.rows * SHARD_BYTES_PER_ROW,
        ),
      })),
    );
    // Bounded loads: a share larger than this worker's budget spills to the next member in each
    // shard's rendezvous order, so no shard stays without a holder while the fleet has room.
    const { shares, uncovered } = assignBounded(catalogs, members);
    if (uncovered.length)
      opts.log.warn({ uncovered: uncovered.length }, 'fleet: the fleet has no room for every shard');
    const bytesOf = new Map(catalogs.map((c) => [c.id, c.shardBytes]));
    for (const { catalog, shard } of shares.get(opts.workerId) ?? []) {
      if (stopped) return;
      if (opts.published.holds(catalog, shard)) continue;
      // The estimate per row can be off for unusual shards: never evict our own share to load it.
      const need = bytesOf.get(catalog)![shard];
      if (opts.published.stats().memory.bytes + need > opts.capacityBytes) {
        opts.log.warn({ catalog, shard }, 'fleet: share exceeds the shard memory budget');
        return;
      }
      try {
        await opts.published.shard(catalog, shard);
      } catch (err) {
        // A shard that fails its checksum stays without a holder (and is reported by the scan
        // that needs it); the rest of the share is still loaded.
        opts.log.warn({ err, catalog, shard }, 'fleet: prefetching a shard failed');
        continue;
      }
      await announce();
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
