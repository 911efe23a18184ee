/**
 * What the API's /metrics exports besides request latency: the in-process search pool (scans,
 * rows scanned and read, busy threads, queued searches), the scan fleet (members, shards held per
 * worker, shards without a holder, fan-out searches and partial answers) and the Temporal task
 * queues' backlog (DescribeTaskQueue). Scans per second and cache hit rates are rates of these
 * counters in Prometheus; each worker exports its own shard-cache counters on its scan endpoint.
 */
import type { Connection } from '@temporalio/client';
import { createMetricsRegistry, type MetricsRegistry } from '../platform/metrics.ts';
import type { SearchPool } from '../engine/search/index.ts';
import type { FleetSearch } from '../api/services/fleet-search.ts';
import { TASK_QUEUES, taskQueue, type TaskQueueKind } from '../workflows/contracts.ts';
import { cachesStats } from '../platform/lru.ts';
import { isolateMemory, threadPoolsMemory, type IsolateMemory } from '../engine/threads/index.ts';

/** One isolate's memory as labelled samples (`kind`: heap_used, external, array_buffers, wasm_<name>). */
function memorySamples(m: IsolateMemory, labels: Record<string, string>) {
  return [
    { labels: { ...labels, kind: 'heap_used' }, value: m.heapUsed },
    { labels: { ...labels, kind: 'external' }, value: m.external },
    { labels: { ...labels, kind: 'array_buffers' }, value: m.arrayBuffers },
    ...Object.entries(m.wasm).map(([name, v]) => ({ labels: { ...labels, kind: `wasm_${name}` }, value: v })),
  ];
}

export function createStackMetrics(deps: {
  pool: SearchPool;
  fleet?: FleetSearch;
  connection: Connection;
  namespace: string;
  prefix: string;
}): MetricsRegistry {
  const r = createMetricsRegistry();
  // Memory by where it lives (issue 15): RSS, the main isolate, and every engine thread, so a
  // growing RSS can be attributed to a heap, a WASM module or (by difference) native allocations.
  r.collect('process_resident_memory_bytes', 'Resident set size of this process', 'gauge', () => [
    { value: process.memoryUsage.rss() },
  ]);
  r.collect(
    'isolate_memory_bytes',
    'Memory of the main isolate and of each engine thread',
    'gauge',
    async () => [
      ...memorySamples(isolateMemory(), { pool: 'main', slot: '0' }),
      ...(await threadPoolsMemory()).flatMap((m) => memorySamples(m, { pool: m.pool, slot: String(m.slot) })),
    ],
  );
  r.collect('cache_bytes', 'Bytes held by each in-memory cache (bounded by cache_max_bytes)', 'gauge', () =>
    cachesStats().map((c) => ({ labels: { cache: c.name }, value: c.bytes })),
  );
  r.collect('cache_max_bytes', 'Byte budget of each in-memory cache', 'gauge', () =>
    cachesStats().map((c) => ({ labels: { cache: c.name }, value: c.maxBytes })),
  );
  const pool = () => deps.pool.stats();
  r.collect('molsearch_searches_total', 'Searches run by the in-process pool', 'counter', () => [
    { value: pool().searches },
  ]);
  r.collect('scan_rows_total', 'Catalog rows covered by in-process scans', 'counter', () => [
    { value: pool().rowsScanned },
  ]);
  r.collect(
    'scan_fingerprints_read_total',
    'Rows whose fingerprints were read (not pruned)',
    'counter',
    () => [{ value: pool().rowsTouched }],
  );
  r.collect('engine_busy_threads', 'Search threads scanning now', 'gauge', () => [
    { value: pool().busyThreads },
  ]);
  r.collect('engine_queued_searches', 'Searches waiting for a search thread', 'gauge', () => [
    { value: pool().queuedSearches },
  ]);
  r.collect('catalog_rows_loaded', 'Rows loaded in this process', 'gauge', () => [{ value: pool().rows }]);
  const fleet = deps.fleet;
  if (fleet) {
    r.collect('fleet_members', 'Live scan workers', 'gauge', async () => [
      { value: (await fleet.placement()).members.length },
    ]);
    r.collect('fleet_shards_held', 'Shards held in memory per worker', 'gauge', async () =>
      (await fleet.placement()).members.map((m) => ({
        labels: { worker: m.workerId },
        value: m.held.length,
      })),
    );
    r.collect('fleet_shard_bytes_held', 'Shard memory held per worker', 'gauge', async () =>
      (await fleet.placement()).members.map((m) => ({ labels: { worker: m.workerId }, value: m.heldBytes })),
    );
    r.collect('fleet_uncovered_shards', 'Shards no live worker holds', 'gauge', async () =>
      Object.entries((await fleet.placement()).uncovered).map(([c, s]) => ({
        labels: { catalog: c },
        value: s.length,
      })),
    );
    r.collect('fleet_searches_total', 'Searches fanned out to the fleet', 'counter', () => [
      { value: fleet.stats().searches },
    ]);
    r.collect(
      'fleet_searches_partial_total',
      'Fan-out searches answered with partial coverage',
      'counter',
      () => [{ value: fleet.stats().partial }],
    );
    r.collect(
      'fleet_failed_requests_total',
      'Scan requests to workers that failed or were late',
      'counter',
      () => [{ value: fleet.stats().failedRequests }],
    );
  }
  r.collect('temporal_task_queue_backlog', 'Approximate backlog of each task queue', 'gauge', async () => {
    const kinds = Object.keys(TASK_QUEUES) as TaskQueueKind[];
    return Promise.all(
      kinds.map(async (kind) => {
        const name = taskQueue(deps.prefix, kind);
        const res = await deps.connection.workflowService.describeTaskQueue({
          namespace: deps.namespace,
          taskQueue: { name },
          // TASK_QUEUE_TYPE_WORKFLOW = 1, TASK_QUEUE_TYPE_ACTIVITY = 2 (temporal.api.enums.v1).
          taskQueueType: kind === 'orchestration' ? 1 : 2,
          reportStats: true,
        });
        return { labels: { queue: name }, value: Number(res.stats?.approximateBacklogCount ?? 0) };
      }),
    );
  });
  return r;
}
