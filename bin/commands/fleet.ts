import { parseArgs } from 'node:util';
import { loadConfig } from '../../platform/config.ts';
import { openObjectStore } from '../../platform/object-store/index.ts';
import { listPublishedCatalogs, openPublishedCatalog } from '../../engine/catalog/index.ts';
import { listMembers, routeShard, type FleetMember } from '../../engine/fleet/members.ts';
import { SHARD_BYTES_PER_ROW, assignBounded } from '../../engine/fleet/placement.ts';

export const FLEET_USAGE = `usage: molsearch fleet status [--json] | molsearch fleet placement --catalog ID [--json]
status: the scan workers of this deployment (TASK_QUEUE_PREFIX) with their queue, capacity and shards
held, the members not heard from within FLEET_STALE_MS, and per published catalog the shards no live
worker holds. placement: each shard of a catalog with its holders and its rendezvous owner.`;

export interface ShardPlacement {
  shard: number;
  rows: number;
  holders: string[];
  owner: string | null;
  /** Where a job scan goes now (a holder, else the owner, else the shared queue). */
  route: string | null;
}

export interface CatalogPlacement {
  catalog: string;
  shards: ShardPlacement[];
  uncovered: number[];
}

export interface FleetStatus {
  members: FleetMember[];
  stale: FleetMember[];
  catalogs: CatalogPlacement[];
}

/** Members and the placement of every published catalog (or only `only`). */
export async function fleetStatus(only?: string): Promise<FleetStatus> {
  const config = loadConfig();
  const objects = await openObjectStore(config);
  const { live, stale } = await listMembers(objects, config.temporal.taskQueuePrefix, config.fleet.staleMs);
  const ids = only ? [only] : await listPublishedCatalogs(objects);
  const opened = await Promise.all(
    ids.map(async (id) => ({ id, c: await openPublishedCatalog(objects, id) })),
  );
  // The owners the workers compute: bounded-load rendezvous over every published catalog.
  const everything = only
    ? await Promise.all(
        (await listPublishedCatalogs(objects)).map(async (id) => ({
          id,
          c: id === only ? opened[0].c : await openPublishedCatalog(objects, id),
        })),
      )
    : opened;
  const { shares, uncovered } = assignBounded(
    everything.map(({ id, c }) => ({
      id,
      shardBytes: c.manifest.shards.map((s) => s.rows * SHARD_BYTES_PER_ROW),
    })),
    live,
  );
  const ownerOf = new Map<string, string>();
  for (const [w, list] of shares) for (const x of list) ownerOf.set(`${x.catalog}/${x.shard}`, w);
  for (const x of uncovered) ownerOf.set(`${x.catalog}/${x.shard}`, x.owner);
  const catalogs: CatalogPlacement[] = [];
  for (const { id, c } of opened) {
    const shards = c.manifest.shards.map((s, i): ShardPlacement => {
      const holders = live
        .filter((m) => m.held.some((h) => h.catalog === id && h.shard === i && h.sha256 === s.sha256))
        .map((m) => m.workerId);
      return {
        shard: i,
        rows: s.rows,
        holders,
        owner: ownerOf.get(`${id}/${i}`) ?? null,
        route: routeShard(live, id, i, s.sha256)?.workerId ?? null,
      };
    });
    catalogs.push({
      catalog: id,
      shards,
      uncovered: shards.filter((s) => !s.holders.length).map((s) => s.shard),
    });
  }
  return { members: live, stale, catalogs };
}

const gb = (n: number) => `${(n / 2 ** 30).toFixed(2)} GiB`;

/** `molsearch fleet status|placement`. */
export async function runFleet(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  let values;
  try {
    ({ values } = parseArgs({
      args: rest,
      options: { json: { type: 'boolean' }, catalog: { type: 'string' } },
    }));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${FLEET_USAGE}\n`);
    return 2;
  }
  if ((sub !== 'status' && sub !== 'placement') || (sub === 'placement' && !values.catalog)) {
    process.stderr.write(`${FLEET_USAGE}\n`);
    return 2;
  }
  const st = await fleetStatus(sub === 'placement' ? values.catalog : undefined);
  if (values.json) {
    process.stdout.write(`${JSON.stringify(st, null, 1)}\n`);
    return 0;
  }
  const lines: string[] = [];
  if (sub === 'status') {
    lines.push(`${st.members.length} live scan worker(s)`);
    for (const m of st.members)
      lines.push(
        `  ${m.workerId}  queue ${m.queue}  ${m.host}:${m.pid}  holds ${m.held.length} shard(s), ` +
          `${gb(m.heldBytes)} of ${gb(m.capacityBytes)}  last seen ${m.at}`,
      );
    for (const m of st.stale) lines.push(`  gone: ${m.workerId} (last seen ${m.at})`);
    for (const c of st.catalogs)
      lines.push(
        `catalog ${c.catalog}: ${c.shards.length - c.uncovered.length}/${c.shards.length} shards held` +
          (c.uncovered.length ? `; without a holder: ${c.uncovered.join(', ')}` : ''),
      );
  } else {
    for (const c of st.catalogs)
      for (const s of c.shards)
        lines.push(
          `${c.catalog} shard ${s.shard} (${s.rows} rows): held by ${s.holders.join(', ') || 'nobody'}; ` +
            `owner ${s.owner ?? '-'}; scans go to ${s.route ?? 'the shared queue'}`,
        );
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}
