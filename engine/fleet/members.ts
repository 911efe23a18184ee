/**
 * Fleet membership in the object store: every scan worker writes its record,
 * `fleet/<prefix>/workers/<workerId>.json`, at start, every few seconds and after each shard it
 * loads or drops, and deletes it when it stops. Readers (job placement, the API's fan-out,
 * `molsearch fleet status`, /metrics) list the records and ignore those not rewritten within the
 * staleness window, so a SIGKILLed worker drops out by itself. The object store is the one thing
 * every process already shares; no other coordinator is needed.
 */
import type { PlacementMember } from './placement.ts';
import { shardOwners } from './placement.ts';

export const MEMBER_FORMAT = 'molsearch-fleet-member/1';

/** A shard a member holds in memory. */
export interface HeldShardRecord {
  catalog: string;
  shard: number;
  sha256: string;
  rows: number;
}

export interface FleetMember extends PlacementMember {
  format: typeof MEMBER_FORMAT;
  /** The member's own scan task queue (scans placed on it reach only this process). */
  queue: string;
  /** Base URL of its internal scan endpoint, when it serves one. */
  scanUrl?: string;
  host: string;
  pid: number;
  startedAt: string;
  /** When the record was written (ISO time). */
  at: string;
  heldBytes: number;
  held: HeldShardRecord[];
}

/** What the membership needs of an object store (the platform's ObjectStore has it). */
export interface MemberStore {
  put(key: string, body: Uint8Array | string, contentType?: string): Promise<void>;
  getBytes(key: string): Promise<Uint8Array>;
  delete(key: string): Promise<void>;
  list(prefix: string): Promise<string[]>;
}

export const membersPrefix = (prefix: string): string => `fleet/${prefix}/workers/`;

/** A worker id usable in a task-queue name and an object key. */
export function checkWorkerId(id: string): string {
  if (!/^[\w.-]{1,100}$/.test(id)) throw new RangeError(`bad worker id ${JSON.stringify(id)}`);
  return id;
}

export async function writeMember(store: MemberStore, prefix: string, m: FleetMember): Promise<void> {
  await store.put(
    `${membersPrefix(prefix)}${checkWorkerId(m.workerId)}.json`,
    JSON.stringify(m),
    'application/json',
  );
}

export async function removeMember(store: MemberStore, prefix: string, workerId: string): Promise<void> {
  await store.delete(`${membersPrefix(prefix)}${checkWorkerId(workerId)}.json`);
}

function isMember(x: unknown): x is FleetMember {
  const m = x as Partial<FleetMember>;
  return (
    !!m &&
    m.format === MEMBER_FORMAT &&
    typeof m.workerId === 'string' &&
    typeof m.queue === 'string' &&
    Number.isFinite(m.capacityBytes) &&
    typeof m.at === 'string' &&
    Array.isArray(m.held)
  );
}

export interface MemberListing {
  /** Members heard from within the staleness window, sorted by id. */
  live: FleetMember[];
  /** Records older than that (dead or partitioned workers), sorted by id. */
  stale: FleetMember[];
}

/** Reads every member record; unreadable records are skipped (a record being rewritten). */
export async function listMembers(
  store: MemberStore,
  prefix: string,
  staleMs: number,
  now = Date.now(),
): Promise<MemberListing> {
  const keys = (await store.list(membersPrefix(prefix))).filter((k) => k.endsWith('.json'));
  const all = await Promise.all(
    keys.map(async (k) => {
      try {
        const m: unknown = JSON.parse(Buffer.from(await store.getBytes(k)).toString('utf8'));
        return isMember(m) ? m : undefined;
      } catch {
        return undefined;
      }
    }),
  );
  const out: MemberListing = { live: [], stale: [] };
  for (const m of all
    .filter((x): x is FleetMember => !!x)
    .sort((a, b) => a.workerId.localeCompare(b.workerId)))
    (now - Date.parse(m.at) <= staleMs ? out.live : out.stale).push(m);
  return out;
}

/**
 * The member a shard's scan should go to: a live member that announces holding exactly these
 * bytes (the rendezvous-best of them when several do), else the shard's rendezvous owner, which
 * fetches it into its cache; undefined when there are no live members.
 */
export function routeShard(
  live: readonly FleetMember[],
  catalog: string,
  shard: number,
  sha256: string,
): FleetMember | undefined {
  const holders = live.filter((m) =>
    m.held.some((h) => h.catalog === catalog && h.shard === shard && h.sha256 === sha256),
  );
  return shardOwners(catalog, shard, holders.length ? holders : live)[0];
}
