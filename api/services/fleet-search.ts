/**
 * Synchronous searches over catalogs the fleet holds (docs/scaling.md): the API sends each live
 * worker the shards it holds (or owns) in BitBound order and merges their top k exactly. It waits
 * at most the latency budget; a worker that fails or is late has its shards retried once on
 * another member while time remains, and whatever is still missing is reported as coverage
 * (a warning naming the shards), never dropped silently. No shard answered → 503 overloaded.
 */
import type { Logger } from '../../platform/logger.ts';
import { DomainError } from '../../platform/errors.ts';
import { readShard, type CatalogManifest, type ShardData } from '../../engine/catalog/index.ts';
import { popcountOf, prepareWeights, tanimotoBounds, type Hit } from '../../engine/search/index.ts';
import { maxBound } from '../../engine/search/bitbound.ts';
import { routeShard, type FleetMember } from '../../engine/fleet/members.ts';

export interface FleetCoverage {
  shardsDone: number;
  shardsTotal: number;
  /** Share of the searched molecules whose shards answered (0..1). */
  fraction: number;
  missing: string[];
  /** Set when something is missing: the warning the response carries. */
  message?: string;
}

export interface FleetKnnResult {
  hits: Hit[];
  /** The hit rows (each fleet hit's shard index points into these). */
  shardOf(hit: Hit): ShardData;
  coverage: FleetCoverage;
}

export interface FleetSearch {
  /** Catalogs answered through the fleet. */
  manifests: CatalogManifest[];
  /**
   * Top k over `catalogs`: by Tanimoto to a fingerprint (256 bytes), or by the continuous
   * Tanimoto to a weight vector (2048 float64: a centroid's mean bit frequencies or an embedding),
   * exactly as the search pool ranks them.
   */
  knn(catalogs: string[], query: Uint8Array | Float64Array, k: number): Promise<FleetKnnResult>;
  /** Counters for /metrics. */
  stats(): { searches: number; partial: number; failedRequests: number };
  /** Live members and, per catalog, the shards no live member holds (/health, /metrics). */
  placement(): Promise<{ members: FleetMember[]; uncovered: Record<string, number[]> }>;
}

interface Answer {
  done: number[];
  failed: { shard: number; error: string }[];
  parts: { shard: number; rows: number[]; scores: number[]; data: string }[];
}

interface Task {
  catalog: string;
  shards: number[];
  member: FleetMember;
}

export function createFleetSearch(deps: {
  manifests: CatalogManifest[];
  /** Live members (read from the object store; cached briefly by the caller). */
  members: () => Promise<FleetMember[]>;
  budgetMs: number;
  token?: string;
  log: Logger;
}): FleetSearch {
  const byId = new Map(deps.manifests.map((m) => [m.id, m]));
  const st = { searches: 0, partial: 0, failedRequests: 0 };

  async function send(t: Task, query: Record<string, string>, k: number, until: number): Promise<Answer> {
    const left = until - Date.now();
    if (left <= 0) throw new Error('no time left');
    const res = await fetch(`${t.member.scanUrl}/internal/scan`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(deps.token ? { 'x-fleet-token': deps.token } : {}) },
      body: JSON.stringify({
        catalog: t.catalog,
        shards: t.shards,
        ...query,
        k,
        budgetMs: Math.max(1, left - 50),
      }),
      signal: AbortSignal.timeout(left),
    });
    if (!res.ok) throw new Error(`worker ${t.member.workerId}: HTTP ${res.status} ${await res.text()}`);
    return (await res.json()) as Answer;
  }

  /** Groups shards by the member to ask (holder, else owner), skipping `exclude`d members. */
  function plan(catalog: string, shards: number[], live: FleetMember[], exclude: Set<string>): Task[] {
    const m = byId.get(catalog)!;
    const candidates = live.filter((x) => x.scanUrl && !exclude.has(x.workerId));
    const tasks = new Map<string, Task>();
    for (const i of shards) {
      const member = routeShard(candidates, catalog, i, m.shards[i].sha256);
      if (!member) continue;
      const t = tasks.get(member.workerId) ?? { catalog, shards: [], member };
      t.shards.push(i);
      tasks.set(member.workerId, t);
    }
    return [...tasks.values()];
  }

  return {
    manifests: deps.manifests,
    stats: () => ({ ...st }),
    async placement() {
      const members = await deps.members();
      const uncovered: Record<string, number[]> = {};
      for (const m of deps.manifests)
        uncovered[m.id] = m.shards
          .map((s, i) => ({ s, i }))
          .filter(
            ({ s, i }) =>
              !members.some((x) =>
                x.held.some((h) => h.catalog === m.id && h.shard === i && h.sha256 === s.sha256),
              ),
          )
          .map(({ i }) => i);
      return { members, uncovered };
    },
    async knn(catalogs, query, k) {
      st.searches++;
      const until = Date.now() + deps.budgetMs;
      const live = await deps.members();
      // The exact bytes (a weight vector as its float64s), so every worker prepares the same query.
      const b64 = Buffer.from(query.buffer, query.byteOffset, query.byteLength).toString('base64');
      const wire: Record<string, string> = query instanceof Float64Array ? { weights: b64 } : { fp: b64 };
      const bounds =
        query instanceof Float64Array ? prepareWeights(query).bounds : tanimotoBounds(popcountOf(query));
      const done = new Map<string, Set<number>>(catalogs.map((c) => [c, new Set()]));
      // Each hit: where it is in the catalog (for the order of ties) and in its answer's rows.
      const parts: {
        catalog: string;
        shard: number;
        row: number;
        score: number;
        data: ShardData;
        local: number;
      }[] = [];
      const failedShards = new Set<string>();

      const run = async (tasks: Task[], retry: boolean): Promise<void> => {
        await Promise.all(
          tasks.map(async (t) => {
            try {
              const a = await send(t, wire, k, until);
              for (const i of a.done) done.get(t.catalog)!.add(i);
              for (const f of a.failed) failedShards.add(`${t.catalog}/${f.shard}`);
              for (const p of a.parts) {
                // A fresh, aligned copy: readShard views the popcount column in place.
                const data = readShard(new Uint8Array(Buffer.from(p.data, 'base64')), p.shard);
                p.rows.forEach((row, j) =>
                  parts.push({ catalog: t.catalog, shard: p.shard, row, score: p.scores[j], data, local: j }),
                );
              }
            } catch (err) {
              st.failedRequests++;
              deps.log.warn(
                { err, worker: t.member.workerId, shards: t.shards },
                'fleet search: a worker did not answer',
              );
              if (!retry || Date.now() >= until) return;
              const rest = t.shards.filter((i) => !done.get(t.catalog)!.has(i));
              await run(plan(t.catalog, rest, live, new Set([t.member.workerId])), false);
            }
          }),
        );
      };
      const first: Task[] = [];
      for (const c of catalogs) {
        const m = byId.get(c)!;
        // Best bound first: each worker chains its k-th score through its shards in this order.
        const order = m.shards
          .map((s, i) => ({ i, b: maxBound(bounds, s.popcount_min, s.popcount_max) }))
          .sort((x, y) => y.b - x.b || x.i - y.i)
          .map((x) => x.i);
        first.push(...plan(c, order, live, new Set()));
      }
      await run(first, true);

      const all = parts;
      all.sort(
        (a, b) =>
          b.score - a.score || a.catalog.localeCompare(b.catalog) || a.shard - b.shard || a.row - b.row,
      );
      const kept = all.slice(0, k);
      const shards: ShardData[] = [];
      const hits: Hit[] = kept.map((p) => {
        let v = shards.indexOf(p.data);
        if (v < 0) v = shards.push(p.data) - 1;
        return { catalog: p.catalog, shard: v, row: p.local, similarity: p.score };
      });

      let total = 0;
      let answered = 0;
      let rowsTotal = 0;
      let rowsDone = 0;
      const missing: string[] = [];
      for (const c of catalogs) {
        const m = byId.get(c)!;
        m.shards.forEach((s, i) => {
          total++;
          rowsTotal += s.rows;
          if (done.get(c)!.has(i) && !failedShards.has(`${c}/${i}`)) {
            answered++;
            rowsDone += s.rows;
          } else missing.push(`${c}/${s.file.replace(/\.arrow$/, '')}`);
        });
      }
      if (total > 0 && answered === 0)
        throw new DomainError('overloaded', 'no scan worker answered within the search budget', {
          retryAfterSeconds: 1,
        });
      const fraction = rowsTotal ? rowsDone / rowsTotal : 1;
      const coverage: FleetCoverage = { shardsDone: answered, shardsTotal: total, fraction, missing };
      if (missing.length) {
        st.partial++;
        coverage.message =
          `answered from ${answered} of ${total} shards (${(fraction * 100).toFixed(1)}% of the molecules of ` +
          `${catalogs.join(', ')}); missing: ${missing.slice(0, 20).join(', ')}${missing.length > 20 ? ', ...' : ''}`;
      }
      return { hits, shardOf: (h) => shards[h.shard], coverage };
    },
  };
}
