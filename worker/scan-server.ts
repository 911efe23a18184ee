/**
 * A fleet worker's internal scan endpoint (docs/scaling.md, synchronous searches): the API sends
 * `POST /internal/scan {catalog, shards, fp | weights, k, floor, budgetMs}` to the worker holding
 * those shards and gets back each shard's share of the top k (a Tanimoto query by `fp`, or the
 * continuous Tanimoto against `weights`: a centroid or an embedding, engine/search/query.ts), with the hit rows encoded as small shard
 * files (engine/catalog/subset.ts) so it renders them without holding the catalog. Shards are
 * scanned in the order given (best bound first), each seeded with the k-th score reached so far.
 * A shard that fails its checksum is reported in `failed`, never scored; shards not reached
 * before the budget are left out of `done`, so the API can report the coverage.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../platform/logger.ts';
import { encodeShardRows } from '../engine/catalog/subset.ts';
import {
  mergeHits,
  prepareTanimoto,
  prepareWeights,
  scanShardTopK,
  type Hit,
  type PreparedQuery,
} from '../engine/search/index.ts';
import type { PublishedShardCache } from '../activities/shards-published.ts';
import { createMetricsRegistry, type MetricsRegistry } from '../platform/metrics.ts';

export interface ScanRequest {
  catalog: string;
  shards: number[];
  /** Query fingerprint, base64 (256 bytes); exactly one of fp and weights. */
  fp?: string;
  /**
   * Weight vector, base64 of 2048 little-endian float64 (16 KiB): the centroid's mean bit
   * frequencies (or a Morgan embedding), scored by the continuous Tanimoto as the single-process
   * centroid search does. Sent as the exact doubles so every worker prepares the same query.
   */
  weights?: string;
  k: number;
  /** A k-th score already reached elsewhere (inclusive). */
  floor?: number;
  /** Time the worker may spend, from receipt. */
  budgetMs?: number;
}

export interface ScanAnswer {
  done: number[];
  failed: { shard: number; error: string }[];
  /** Per shard with hits: the hit rows as a shard file (base64) and their scores, best first. */
  parts: { shard: number; rows: number[]; scores: number[]; data: string }[];
  scanned: number;
}

/** Counters for /metrics. */
export interface ScanServerStats {
  requests: number;
  shardsScanned: number;
  rowsScanned: number;
}

function bad(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: message }));
}

async function body(req: IncomingMessage, max = 64 * 1024): Promise<string> {
  let s = '';
  for await (const chunk of req) {
    s += String(chunk);
    if (s.length > max) throw new Error('body too large');
  }
  return s;
}

function parse(text: string): ScanRequest | string {
  let r: Partial<ScanRequest>;
  try {
    r = JSON.parse(text) as Partial<ScanRequest>;
  } catch {
    return 'body is not JSON';
  }
  if (typeof r.catalog !== 'string' || !/^[\w.-]+$/.test(r.catalog)) return 'catalog: expected an id';
  if (!Array.isArray(r.shards) || !r.shards.every((s) => Number.isInteger(s) && s >= 0))
    return 'shards: expected shard indices';
  if ((r.fp === undefined) === (r.weights === undefined)) return 'fp or weights: expected exactly one';
  if (r.fp !== undefined && (typeof r.fp !== 'string' || Buffer.from(r.fp, 'base64').length !== 256))
    return 'fp: expected 256 bytes';
  if (r.weights !== undefined) {
    const w = typeof r.weights === 'string' ? weightsOf(r.weights) : undefined;
    if (!w || w.length !== 2048 || !w.every(Number.isFinite)) return 'weights: expected 2048 finite float64';
  }
  if (!Number.isInteger(r.k) || r.k! < 1 || r.k! > 100_000) return 'k: expected 1..100000';
  return r as ScanRequest;
}

/** 2048 float64 from base64 (copied: an aligned buffer), or undefined when the length is wrong. */
function weightsOf(b64: string): Float64Array | undefined {
  const bytes = Buffer.from(b64, 'base64');
  if (bytes.length !== 2048 * 8) return undefined;
  return new Float64Array(new Uint8Array(bytes).buffer);
}

/** The prepared query of a request: a fingerprint's Tanimoto or the weights' continuous Tanimoto. */
function queryOf(r: ScanRequest): PreparedQuery {
  return r.weights !== undefined
    ? prepareWeights(weightsOf(r.weights)!)
    : prepareTanimoto(new Uint8Array(Buffer.from(r.fp!, 'base64')));
}

/** Scans the requested shards (fetching any not held) and answers their top k. */
export async function answerScan(published: PublishedShardCache, r: ScanRequest): Promise<ScanAnswer> {
  const until = Date.now() + (r.budgetMs ?? 60_000);
  const q = queryOf(r);
  let top: Hit[] = [];
  const done: number[] = [];
  const failed: ScanAnswer['failed'] = [];
  let scanned = 0;
  const { manifest } = await published.catalog(r.catalog);
  for (const i of r.shards) {
    if (Date.now() > until) break;
    let shard;
    try {
      shard = await published.shard(r.catalog, i);
    } catch (err) {
      failed.push({ shard: i, error: (err as Error).message });
      continue;
    }
    const floor = Math.max(r.floor ?? -Infinity, top.length >= r.k ? top[r.k - 1].similarity : -Infinity);
    const got = scanShardTopK(shard, q, { k: r.k, floor });
    scanned += got.scanned;
    const part = Array.from(got.rows, (row, j) => ({
      catalog: r.catalog,
      shard: i,
      row,
      similarity: got.scores[j],
    }));
    top = mergeHits(top, part, r.k);
    done.push(i);
  }
  const parts: ScanAnswer['parts'] = [];
  for (const i of [...new Set(top.map((h) => h.shard))]) {
    const hits = top.filter((h) => h.shard === i);
    const shard = await published.shard(r.catalog, i);
    const rows = hits.map((h) => h.row);
    const data = encodeShardRows(shard, rows, manifest.fingerprint.rdkit_version);
    parts.push({
      shard: i,
      rows,
      scores: hits.map((h) => h.similarity),
      data: Buffer.from(data).toString('base64'),
    });
  }
  return { done, failed, parts, scanned };
}

/** A worker's /metrics: its shard cache (both layers) and the fleet scans it served. */
function workerMetrics(published: PublishedShardCache, served: () => ScanServerStats): MetricsRegistry {
  const r = createMetricsRegistry();
  const layers = () => {
    const { memory, disk } = published.stats();
    return { memory, disk };
  };
  for (const [name, field] of [
    ['shard_cache_hits_total', 'hits'],
    ['shard_cache_misses_total', 'misses'],
    ['shard_cache_evictions_total', 'evictions'],
  ] as const)
    r.collect(name, `Shard cache ${field} by layer`, 'counter', () =>
      Object.entries(layers()).map(([layer, c]) => ({ labels: { layer }, value: c[field] })),
    );
  r.collect('shard_cache_bytes', 'Bytes held by each shard cache layer', 'gauge', () =>
    Object.entries(layers()).map(([layer, c]) => ({ labels: { layer }, value: c.bytes })),
  );
  r.collect('shard_cache_checksum_failures_total', 'Downloads that failed their SHA-256', 'counter', () => [
    { value: layers().disk.checksumFailures },
  ]);
  r.collect('shard_cache_fetch_bytes_total', 'Bytes fetched from the object store', 'counter', () => [
    { value: layers().disk.bytesFetched },
  ]);
  r.collect('fleet_shards_held', 'Shards this worker holds in memory', 'gauge', () => [
    { value: published.held().length },
  ]);
  r.collect('fleet_scan_requests_total', 'Fan-out scan requests served', 'counter', () => [
    { value: served().requests },
  ]);
  r.collect('scans_total', 'Shards scanned for fan-out searches', 'counter', () => [
    { value: served().shardsScanned },
  ]);
  r.collect('scan_rows_total', 'Rows scanned for fan-out searches', 'counter', () => [
    { value: served().rowsScanned },
  ]);
  return r;
}

export interface ScanServer {
  url: string;
  stats(): ScanServerStats;
  close(): Promise<void>;
}

/** Listens on host:port (port 0: any free port); FLEET_TOKEN, when set, must come in x-fleet-token. */
export async function startScanServer(opts: {
  host: string;
  port: number;
  published: PublishedShardCache;
  token?: string;
  log: Logger;
}): Promise<ScanServer> {
  const st: ScanServerStats = { requests: 0, shardsScanned: 0, rowsScanned: 0 };
  const metrics = workerMetrics(opts.published, () => st);
  const server = createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/metrics') {
      void metrics.render().then((text) => {
        res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' });
        res.end(text);
      });
      return;
    }
    if (req.method !== 'POST' || req.url !== '/internal/scan') return bad(res, 404, 'not found');
    if (opts.token && req.headers['x-fleet-token'] !== opts.token) return bad(res, 401, 'bad fleet token');
    st.requests++;
    body(req)
      .then(async (text) => {
        const r = parse(text);
        if (typeof r === 'string') return bad(res, 422, r);
        const answer = await answerScan(opts.published, r);
        st.shardsScanned += answer.done.length;
        st.rowsScanned += answer.scanned;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(answer));
      })
      .catch((err: Error) => {
        opts.log.warn({ err }, 'fleet scan failed');
        bad(res, (err as { code?: string }).code === 'catalog_not_found' ? 404 : 500, err.message);
      });
  });
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(opts.port, opts.host, () => ok());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${opts.host}:${port}`,
    stats: () => ({ ...st }),
    close: () => new Promise((ok) => server.close(() => ok())),
  };
}
