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

export function createStackMetrics(deps: {
  pool: SearchPool;
  fleet?: FleetSearch;
  connection: Connection;
  namespace: string;
  prefix: string;
}): MetricsRegistry {
  const r = createMetricsRegistry();
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
