/**
 * Shard placement by rendezvous (highest random weight) hashing: shard s of catalog c belongs to
 * the members with the highest score(c, s, member). Every process computes the same answer from
 * the membership alone, with no coordinator; when a member joins or leaves only the shards it wins
 * or held move (~1/N of them). Scores are weighted by capacity (-w / ln u, u uniform in (0, 1)
 * from the hash), so a member with twice the memory gets about twice the shards.
 */
import { createHash } from 'node:crypto';

/** Memory a loaded shard takes per row (file ≈ 530 B + screen 32 B): placement's unit of load. */
export const SHARD_BYTES_PER_ROW = 560;

export interface PlacementMember {
  workerId: string;
  /** Shard memory budget in bytes (the weight). */
  capacityBytes: number;
}

/** A uniform number in (0, 1) from SHA-256 of the key (stable across processes and versions). */
function unit(key: string): number {
  const h = createHash('sha256').update(key).digest();
  // 48 bits are plenty for ranking; +0.5 keeps it away from 0 and 1.
  return (h.readUIntBE(0, 6) + 0.5) / 2 ** 48;
}

/** The rendezvous score of a member for a shard (higher wins). */
export function placementScore(catalog: string, shard: number, m: PlacementMember): number {
  const w = Math.max(1, m.capacityBytes);
  return -w / Math.log(unit(`${catalog}\u0000${shard}\u0000${m.workerId}`));
}

/** The members that own a shard, best first (at most `replicas`). */
export function shardOwners<M extends PlacementMember>(
  catalog: string,
  shard: number,
  members: readonly M[],
  replicas = 1,
): M[] {
  return members
    .map((m) => ({ m, s: placementScore(catalog, shard, m) }))
    .sort((a, b) => b.s - a.s || a.m.workerId.localeCompare(b.m.workerId))
    .slice(0, Math.max(1, replicas))
    .map((x) => x.m);
}

/** For each member id, the shards (by index) of a catalog it owns. */
export function assignShards<M extends PlacementMember>(
  catalog: string,
  shardCount: number,
  members: readonly M[],
  replicas = 1,
): Map<string, number[]> {
  const out = new Map<string, number[]>(members.map((m) => [m.workerId, []]));
  for (let s = 0; s < shardCount; s++)
    for (const m of shardOwners(catalog, s, members, replicas)) out.get(m.workerId)!.push(s);
  return out;
}

/** A catalog's shards as placement sees them: the memory each takes on a holder. */
export interface PlacedCatalog {
  id: string;
  shardBytes: readonly number[];
}

export interface BoundedAssignment {
  /** Per member id, the shards it should hold, in placement order. */
  shares: Map<string, { catalog: string; shard: number }[]>;
  /** Shards no member has room for (the fleet's memory is too small for all catalogs). */
  uncovered: { catalog: string; shard: number; owner: string }[];
}

/**
 * Rendezvous placement with bounded loads: each shard goes to the first member in its rendezvous
 * order that still has room in its capacity, so an owner whose share is larger than its memory
 * spills the excess to the next-best member instead of leaving it without a holder (plain
 * rendezvous shares are uneven when a worker has only a few shards). Shards are placed in a fixed
 * order (catalog id, then shard index) and capacity counts across catalogs, so every process that
 * sees the same members and manifests computes the same answer. Moving membership changes more
 * than 1/N of the spilled shards, but only those: a shard whose owner has room stays put.
 */
export function assignBounded<M extends PlacementMember>(
  catalogs: readonly PlacedCatalog[],
  members: readonly M[],
): BoundedAssignment {
  const shares = new Map<string, { catalog: string; shard: number }[]>(members.map((m) => [m.workerId, []]));
  const uncovered: BoundedAssignment['uncovered'] = [];
  const load = new Map<string, number>(members.map((m) => [m.workerId, 0]));
  const ordered = [...catalogs].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  for (const c of ordered)
    c.shardBytes.forEach((bytes, shard) => {
      const ranked = shardOwners(c.id, shard, members, members.length);
      const m = ranked.find((x) => load.get(x.workerId)! + bytes <= x.capacityBytes);
      if (!m) {
        if (ranked.length) uncovered.push({ catalog: c.id, shard, owner: ranked[0].workerId });
        return;
      }
      load.set(m.workerId, load.get(m.workerId)! + bytes);
      shares.get(m.workerId)!.push({ catalog: c.id, shard });
    });
  return { shares, uncovered };
}
