import { resolve } from 'node:path';
import { availableParallelism, hostname } from 'node:os';

/**
 * The only reader of process.env. Every process (api, worker, CLI, embedded start) calls
 * loadConfig() once; a bad value stops the process with a message naming the variable.
 */

export const DEFAULT_TIER_LIMITS = {
  free: 1_000,
  academia: 10_000,
  premium: 50_000,
  ultra: 200_000,
  enterprise: 1_000_000,
  demo: 100,
} as const;

export type Tier = keyof typeof DEFAULT_TIER_LIMITS;
export const TIERS = Object.keys(DEFAULT_TIER_LIMITS) as Tier[];

export interface S3Config {
  endpoint?: string;
  region: string;
  bucket: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  forcePathStyle: boolean;
}

export interface Config {
  host: string;
  port: number;
  /** Public base URL used in links (downloads, run links). */
  publicUrl: string;
  dataDir: string;
  logLevel: string;
  /** PostgreSQL URL; undefined means the embedded PGlite database under dataDir. */
  databaseUrl?: string;
  pgliteDir: string;
  temporal: {
    /** Undefined means: start the embedded dev server. */
    address?: string;
    namespace: string;
    cli?: string;
    embeddedPort: number;
    embeddedUiPort: number;
    dbFile: string;
    taskQueuePrefix: string;
  };
  /** Undefined means the local object store under dataDir/objects. */
  s3?: S3Config;
  objectsDir: string;
  catalogDir: string;
  /** Catalog ids served; empty means every catalog found in catalogDir. */
  catalogs: string[];
  /** Build the bundled sample catalogs missing from catalogDir at start (default true). */
  buildBundledCatalogs: boolean;
  /**
   * The local cache of catalog shards fetched from the object store (S3_BUCKET): a directory
   * bounded by diskBytes, and loaded shards in memory bounded by memoryBytes (least recently used
   * evicted from both).
   */
  shardCache: { dir: string; diskBytes: number; memoryBytes: number };
  /**
   * Scan workers in a fleet (with S3_BUCKET): this process's id (its own task queue is
   * `<prefix>-scan-<workerId>`), how often it rewrites its membership record, and after how long
   * without one a member counts as gone (docs/scaling.md).
   */
  fleet: {
    workerId: string;
    heartbeatMs: number;
    staleMs: number;
    /** Where a fleet worker's internal scan endpoint listens (SCAN_LISTEN host:port; port 0 = any). */
    scanHost: string;
    scanPort: number;
    /** Shared secret of the internal scan endpoint (FLEET_TOKEN), when set. */
    token?: string;
    /** FLEET_SEARCH: the API answers published catalogs by fanning out to the workers instead of loading them. */
    search: boolean;
    /** SEARCH_BUDGET_MS: a fanned-out search answers within this, with a coverage warning if it must. */
    searchBudgetMs: number;
  };
  engineThreads: number;
  /**
   * Synthon spaces with at least this many products (LARGE_SPACE_PRODUCTS, default 10,000,000)
   * take the long lanes: the synchronous searches' long space thread, the synthon jobs' large
   * engine lane and scan queue (engine/synthons/space-pool.ts, job-pool.ts; contracts.ts).
   */
  largeSpaceProducts: number;
  /**
   * SHUTDOWN_GRACE_MS: on SIGINT/SIGTERM, how long running activities may finish before they are
   * cancelled (their engine work stopped; the job resumes elsewhere); default 10 s.
   */
  shutdownGraceMs: number;
  /**
   * Threads of the synchronous substructure search; scans run in time slices, cheap first, so a few
   * threads serve many requests fairly (default 2).
   */
  substructureThreads: number;
  /** The Python 3D worker (chem3d/) and the catalogs' 3D stage (docs/chem3d.md). */
  chem3d: {
    /** Start chem3d/worker.py as a child process of `molsearch start` (CHEM3D_WORKER). */
    worker: boolean;
    /**
     * Catalog embedding activities it runs at once, one core each (CHEM3D_CONCURRENCY; default the
     * cores, at most 4): RDKit releases the GIL while embedding, so the worker's threads run in parallel.
     */
    concurrency: number;
    /**
     * Which bundled catalogs get their 3D stage at start (CATALOG_3D): `all` (the small ones
     * before serving, the rest in the background), `start` (only the small ones), `off`.
     */
    stage: 'all' | 'start' | 'off';
    /**
     * Time budget of one synchronous 3D rerank of a synthon space (v2 search_cheese scorer shape
     * or esp), ms (SPACE_3D_BUDGET_MS, default 20,000, at most 25,000): products not embedded by then
     * are left out.
     */
    space3dBudgetMs: number;
  };
  /** Longest time slice of one substructure scan before it yields its thread (default 10 ms). */
  substructureSliceMs: number;
  /**
   * Per substructure thread, the memory of its lazily built index (pickled molecules and pattern
   * fingerprints, ~0.6 KB a product); rows beyond it are parsed from SMILES on every scan.
   */
  substructureIndexBytes: number;
  /** Decoded job results kept in memory for paging (least recently used evicted). */
  resultCacheBytes: number;
  tierLimits: Record<string, number>;
  toolsDir: string;
}

/** Thrown at start-up when an environment variable has a value the service cannot use. */
export class ConfigError extends Error {
  readonly variable: string;
  constructor(variable: string, message: string) {
    super(`invalid configuration: ${variable}: ${message}`);
    this.name = 'ConfigError';
    this.variable = variable;
  }
}

type Env = Record<string, string | undefined>;

function int(env: Env, name: string, def: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  const v = Number(raw);
  if (!Number.isInteger(v) || v < min || v > max)
    throw new ConfigError(name, `expected an integer in [${min}, ${max}], got ${JSON.stringify(raw)}`);
  return v;
}

function bool(env: Env, name: string, def: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  if (/^(1|true|yes)$/i.test(raw)) return true;
  if (/^(0|false|no)$/i.test(raw)) return false;
  throw new ConfigError(name, `expected true or false, got ${JSON.stringify(raw)}`);
}

const UNITS: Record<string, number> = { '': 1, k: 2 ** 10, m: 2 ** 20, g: 2 ** 30, t: 2 ** 40 };

/** A byte count: an integer with an optional binary unit (512M, 20G, 1T; k, m, g, t in any case). */
function byteSize(env: Env, name: string, def: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return def;
  const m = /^(\d+)\s*([kmgt]?)i?b?$/i.exec(raw.trim());
  const v = m ? Number(m[1]) * UNITS[m[2].toLowerCase()] : NaN;
  if (!Number.isSafeInteger(v) || v < 1)
    throw new ConfigError(
      name,
      `expected a positive byte count such as 536870912, 512M or 20G, got ${JSON.stringify(raw)}`,
    );
  return v;
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], def: T): T {
  const raw = str(env, name);
  if (raw === undefined) return def;
  if (!(allowed as readonly string[]).includes(raw))
    throw new ConfigError(name, `expected one of ${allowed.join(', ')}, got ${JSON.stringify(raw)}`);
  return raw as T;
}

function str(env: Env, name: string): string | undefined {
  const raw = env[name];
  return raw === undefined || raw.trim() === '' ? undefined : raw.trim();
}

function tierLimits(env: Env): Record<string, number> {
  const limits: Record<string, number> = { ...DEFAULT_TIER_LIMITS };
  const raw = str(env, 'TIER_LIMITS');
  if (!raw) return limits;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ConfigError('TIER_LIMITS', 'expected a JSON object such as {"free": 500}');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new ConfigError('TIER_LIMITS', 'expected a JSON object');
  for (const [tier, limit] of Object.entries(parsed)) {
    if (!/^[a-z][a-z0-9_-]{0,31}$/.test(tier))
      throw new ConfigError('TIER_LIMITS', `bad tier name ${JSON.stringify(tier)}`);
    if (!Number.isInteger(limit) || (limit as number) < 0)
      throw new ConfigError('TIER_LIMITS', `limit of ${tier} must be a non-negative integer`);
    limits[tier] = limit as number;
  }
  return limits;
}

/** WORKER_ID, default hostname-pid (characters outside [A-Za-z0-9_.-] become '-'). */
function workerId(env: Env): string {
  const raw = str(env, 'WORKER_ID');
  if (raw && !/^[\w.-]{1,100}$/.test(raw))
    throw new ConfigError('WORKER_ID', 'expected 1-100 characters of letters, digits, _ . -');
  return raw ?? `${hostname()}-${process.pid}`.replace(/[^\w.-]/g, '-').slice(0, 100);
}

function scanListen(env: Env): { scanHost: string; scanPort: number } {
  const raw = str(env, 'SCAN_LISTEN') ?? '127.0.0.1:0';
  const m = /^([\w.-]+):(\d{1,5})$/.exec(raw);
  if (!m || Number(m[2]) > 65535)
    throw new ConfigError(
      'SCAN_LISTEN',
      `expected host:port such as 127.0.0.1:7300, got ${JSON.stringify(raw)}`,
    );
  return { scanHost: m[1], scanPort: Number(m[2]) };
}

export function loadConfig(env: Env = process.env, cwd = process.cwd()): Config {
  const dataDir = resolve(cwd, str(env, 'DATA_DIR') ?? 'data');
  const host = str(env, 'HOST') ?? '127.0.0.1';
  const port = int(env, 'PORT', 8000, 0, 65535);
  const databaseUrl = str(env, 'DATABASE_URL');
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl))
    throw new ConfigError('DATABASE_URL', 'expected a postgres:// URL');
  const s3Bucket = str(env, 'S3_BUCKET');
  const s3Endpoint = str(env, 'S3_ENDPOINT');
  if (s3Endpoint && !/^https?:\/\//.test(s3Endpoint))
    throw new ConfigError('S3_ENDPOINT', 'expected an http(s):// URL');
  const s3: S3Config | undefined = s3Bucket
    ? {
        endpoint: s3Endpoint,
        region: str(env, 'S3_REGION') ?? 'us-east-1',
        bucket: s3Bucket,
        accessKeyId: str(env, 'S3_ACCESS_KEY_ID'),
        secretAccessKey: str(env, 'S3_SECRET_ACCESS_KEY'),
        forcePathStyle: bool(env, 'S3_FORCE_PATH_STYLE', Boolean(s3Endpoint)),
      }
    : undefined;
  if (s3Endpoint && !s3) throw new ConfigError('S3_BUCKET', 'S3_ENDPOINT is set but S3_BUCKET is not');
  const catalogs = (str(env, 'CATALOGS') ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return {
    host,
    port,
    publicUrl: (str(env, 'PUBLIC_URL') ?? `http://${host}:${port}`).replace(/\/$/, ''),
    dataDir,
    logLevel: str(env, 'LOG_LEVEL') ?? 'info',
    databaseUrl,
    pgliteDir: resolve(dataDir, 'pglite'),
    temporal: {
      address: str(env, 'TEMPORAL_ADDRESS'),
      namespace: str(env, 'TEMPORAL_NAMESPACE') ?? 'default',
      cli: str(env, 'TEMPORAL_CLI'),
      embeddedPort: int(env, 'TEMPORAL_PORT', 7233, 1, 65535),
      embeddedUiPort: int(env, 'TEMPORAL_UI_PORT', 8233, 1, 65535),
      dbFile: resolve(dataDir, 'temporal.db'),
      taskQueuePrefix: str(env, 'TASK_QUEUE_PREFIX') ?? 'molsearch',
    },
    s3,
    objectsDir: resolve(dataDir, 'objects'),
    catalogDir: resolve(cwd, str(env, 'CATALOG_DIR') ?? resolve(dataDir, 'catalogs')),
    catalogs,
    buildBundledCatalogs: bool(env, 'BUILD_BUNDLED_CATALOGS', true),
    shardCache: {
      dir: resolve(cwd, str(env, 'SHARD_CACHE_DIR') ?? resolve(dataDir, 'shard-cache')),
      diskBytes: byteSize(env, 'SHARD_CACHE_DISK_BYTES', 20 * 2 ** 30),
      memoryBytes: byteSize(env, 'SHARD_CACHE_MEMORY_BYTES', 4 * 2 ** 30),
    },
    fleet: {
      workerId: workerId(env),
      heartbeatMs: int(env, 'FLEET_HEARTBEAT_MS', 5_000, 100, 600_000),
      staleMs: int(env, 'FLEET_STALE_MS', 20_000, 200, 3_600_000),
      ...scanListen(env),
      token: str(env, 'FLEET_TOKEN'),
      search: bool(env, 'FLEET_SEARCH', false),
      searchBudgetMs: int(env, 'SEARCH_BUDGET_MS', 1_500, 10, 600_000),
    },
    shutdownGraceMs: int(env, 'SHUTDOWN_GRACE_MS', 10_000, 0, 3_600_000),
    engineThreads: int(env, 'ENGINE_THREADS', Math.max(1, Math.min(availableParallelism(), 8)), 1, 256),
    largeSpaceProducts: int(env, 'LARGE_SPACE_PRODUCTS', 10_000_000, 1, 2 ** 31 - 1),
    substructureThreads: int(env, 'SUBSTRUCTURE_THREADS', 2, 1, 64),
    chem3d: {
      worker: bool(env, 'CHEM3D_WORKER', true),
      concurrency: int(env, 'CHEM3D_CONCURRENCY', Math.max(1, Math.min(availableParallelism(), 4)), 1, 64),
      stage: oneOf(env, 'CATALOG_3D', ['all', 'start', 'off'] as const, 'all'),
      space3dBudgetMs: int(env, 'SPACE_3D_BUDGET_MS', 20_000, 0, 25_000),
    },
    substructureSliceMs: int(env, 'SUBSTRUCTURE_SLICE_MS', 10, 1, 10_000),
    substructureIndexBytes: byteSize(env, 'SUBSTRUCTURE_INDEX_BYTES', 256 * 2 ** 20),
    resultCacheBytes: byteSize(env, 'RESULT_CACHE_BYTES', 256 * 2 ** 20),
    tierLimits: tierLimits(env),
    toolsDir: resolve(cwd, str(env, 'TOOLS_DIR') ?? '.tools'),
  };
}
