/**
 * Shard placement by rendezvous (highest random weight) hashing: shard s of catalog c belongs to
 * the members with the highest score(c, s, member). Every process computes the same answer from
 * the membership alone, with no coordinator; when a member joins or leaves only the shards it wins
 * or held move (~1/N of them). Scores are weighted by capacity (-w / ln u, u uniform in (0, 1)
 * from the hash), so a member with twice the memory gets about twice the shards.
 */
import { createHash } from 'node:crypto';

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
