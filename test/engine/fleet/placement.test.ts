import { describe, expect, it } from 'vitest';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assignBounded, assignShards, shardOwners } from '../../../engine/fleet/placement.ts';
import {
  MEMBER_FORMAT,
  listMembers,
  removeMember,
  routeShard,
  writeMember,
  type FleetMember,
} from '../../../engine/fleet/members.ts';
import { createLocalObjectStore } from '../../../platform/object-store/index.ts';

const GiB = 2 ** 30;
const member = (workerId: string, capacityBytes = 4 * GiB, held: FleetMember['held'] = []): FleetMember => ({
  format: MEMBER_FORMAT,
  workerId,
  queue: `q-scan-${workerId}`,
  capacityBytes,
  host: 'h',
  pid: 1,
  startedAt: new Date().toISOString(),
  at: new Date().toISOString(),
  heldBytes: 0,
  held,
});

describe('rendezvous shard placement', () => {
  it('spreads shards evenly, is the same in every process and ignores member order', () => {
    const ms = ['w-a', 'w-b', 'w-c'].map((id) => member(id));
    const a = assignShards('zinc', 600, ms);
    const b = assignShards('zinc', 600, [...ms].reverse());
    expect(a).toEqual(b);
    for (const shards of a.values()) {
      expect(shards.length).toBeGreaterThan(160); // 200 expected; 160 is > 4 sigma below
      expect(shards.length).toBeLessThan(240);
    }
    expect([...a.values()].flat().sort((x, y) => x - y)).toEqual(Array.from({ length: 600 }, (_, i) => i));
  });

  it('a member joining takes about 1/N of the shards and moves no shard between the others', () => {
    const three = ['w-a', 'w-b', 'w-c'].map((id) => member(id));
    const four = [...three, member('w-d')];
    let moved = 0;
    for (let s = 0; s < 800; s++) {
      const before = shardOwners('zinc', s, three)[0].workerId;
      const after = shardOwners('zinc', s, four)[0].workerId;
      if (before !== after) {
        expect(after).toBe('w-d');
        moved++;
      }
    }
    expect(moved).toBeGreaterThan(150); // 200 expected
    expect(moved).toBeLessThan(250);
  });

  it('weights by capacity: twice the memory, about twice the shards', () => {
    const a = assignShards('zinc', 900, [member('big', 8 * GiB), member('small', 4 * GiB)]);
    expect(a.get('big')!.length / a.get('small')!.length).toBeGreaterThan(1.6);
    expect(a.get('big')!.length / a.get('small')!.length).toBeLessThan(2.5);
  });

  it('replicas: r distinct owners per shard, the first as without replicas', () => {
    const ms = ['w-a', 'w-b', 'w-c', 'w-d'].map((id) => member(id));
    for (let s = 0; s < 50; s++) {
      const two = shardOwners('c', s, ms, 2);
      expect(new Set(two.map((m) => m.workerId)).size).toBe(2);
      expect(two[0]).toBe(shardOwners('c', s, ms)[0]);
    }
  });
});

describe('bounded-load placement (spill when the owner is full)', () => {
  const MiB = 2 ** 20;
  const cat = (id: string, n: number, bytes = 10 * MiB) => ({ id, shardBytes: Array(n).fill(bytes) });

  it('with room for everything equals plain rendezvous', () => {
    const ms = ['w-a', 'w-b', 'w-c'].map((id) => member(id));
    const { shares, uncovered } = assignBounded([cat('zinc', 60)], ms);
    const plain = assignShards('zinc', 60, ms);
    expect(uncovered).toEqual([]);
    for (const [w, list] of shares) expect(list.map((x) => x.shard)).toEqual(plain.get(w));
  });

  it("spills an owner's excess to the next member so every shard has a holder", () => {
    // 16 shards of 10 MiB over 4 members with room for 4.5 shards each: plain rendezvous gives
    // some member more than 4 (uneven shares), which used to leave shards without a holder.
    const ms = ['w-a', 'w-b', 'w-c', 'w-d'].map((id) => member(id, 45 * MiB));
    const plain = assignShards('zinc', 16, ms);
    expect(Math.max(...[...plain.values()].map((l) => l.length))).toBeGreaterThan(4);
    const { shares, uncovered } = assignBounded([cat('zinc', 16)], ms);
    expect(uncovered).toEqual([]);
    const all = [...shares.values()]
      .flat()
      .map((x) => x.shard)
      .sort((a, b) => a - b);
    expect(all).toEqual(Array.from({ length: 16 }, (_, i) => i));
    for (const list of shares.values()) expect(list.length * 10 * MiB).toBeLessThanOrEqual(45 * MiB);
    // A shard leaves its rendezvous owner only when that owner is full.
    for (const [w, list] of shares)
      for (const { shard } of list) {
        const owner = shardOwners('zinc', shard, ms)[0].workerId;
        if (owner !== w) expect(shares.get(owner)!.length * 10 * MiB + 10 * MiB).toBeGreaterThan(45 * MiB);
      }
  });

  it('counts capacity across catalogs, reports what does not fit, same answer in any order', () => {
    const ms = ['w-a', 'w-b'].map((id) => member(id, 50 * MiB));
    const a = assignBounded([cat('zinc', 6), cat('enamine', 6)], ms);
    const b = assignBounded([cat('enamine', 6), cat('zinc', 6)], [...ms].reverse());
    expect(a).toEqual(b);
    expect([...a.shares.values()].flat()).toHaveLength(10);
    expect(a.uncovered).toHaveLength(2);
    for (const u of a.uncovered) expect(u.owner).toBe(shardOwners(u.catalog, u.shard, ms)[0].workerId);
  });
});

describe('fleet membership in the object store', () => {
  it('lists live members, sets aside stale ones and forgets removed ones', async () => {
    const store = createLocalObjectStore(await mkdtemp(join(tmpdir(), 'fleet-')));
    await writeMember(store, 'p', member('w-a'));
    await writeMember(store, 'p', { ...member('w-b'), at: new Date(Date.now() - 60_000).toISOString() });
    await writeMember(store, 'other', member('w-x'));
    let l = await listMembers(store, 'p', 20_000);
    expect(l.live.map((m) => m.workerId)).toEqual(['w-a']);
    expect(l.stale.map((m) => m.workerId)).toEqual(['w-b']);
    await removeMember(store, 'p', 'w-a');
    l = await listMembers(store, 'p', 20_000);
    expect(l.live).toEqual([]);
    await expect(writeMember(store, 'p', member('../x'))).rejects.toThrow(/bad worker id/);
  });

  it('routes a scan to the member holding the same bytes, else to the rendezvous owner', () => {
    const sha = 'a'.repeat(64);
    const ms = ['w-a', 'w-b', 'w-c'].map((id) => member(id));
    const owner = shardOwners('c', 7, ms)[0].workerId;
    const other = ms.find((m) => m.workerId !== owner)!;
    other.held = [{ catalog: 'c', shard: 7, sha256: sha, rows: 10 }];
    expect(routeShard(ms, 'c', 7, sha)!.workerId).toBe(other.workerId);
    // Another version of the shard (republished): the holder's copy does not count.
    expect(routeShard(ms, 'c', 7, 'b'.repeat(64))!.workerId).toBe(owner);
    expect(routeShard([], 'c', 7, sha)).toBeUndefined();
  });
});
