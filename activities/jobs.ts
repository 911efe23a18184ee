/**
 * Activities of legacy molsearch jobs: prepare (parse the query, list shards), scan one shard into a
 * small top-k part in the object store, merge parts into the result file, and record status in
 * the metadata store. Input errors are non-retryable failures of type `invalid_input`; anything
 * else is thrown plainly so Temporal retries it.
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import type { Logger } from '../platform/logger.ts';
import type { ObjectStore } from '../platform/object-store/index.ts';
import type { Jobs, JobUpdate } from '../store/jobs.ts';
import { getRDKit, parseMolecule } from '../engine/chem/index.ts';
import { decodeJobResult, encodeJobResult } from '../engine/export/index.ts';
import { scanShardTopK } from '../engine/search/shard-memory.ts';
import { createShardCache, decodePart, encodePart, type ShardCache } from './jobs-shards.ts';
import { joinResult, type MergePart } from './jobs-merge.ts';
import { mergeBounded } from './jobs-merge-rows.ts';
import { routeShard, type FleetMember } from '../engine/fleet/members.ts';
import {
  CORRUPT_SHARD_FAILURE,
  INVALID_INPUT_FAILURE,
  WORKER_SHUTDOWN_FAILURE,
} from '../workflows/contracts.ts';

export interface JobActivityDeps {
  log: Logger;
  jobs: Jobs;
  objects: ObjectStore;
  /** Directory of the catalogs this worker scans (config.catalogDir). */
  catalogDir: string;
  /** Where shards come from instead (e.g. local then object store: activities/shards-published.ts). */
  shards?: ShardCache;
  /** Live fleet members (with S3_BUCKET), for placing scans on the workers holding the shards. */
  fleet?: () => Promise<FleetMember[]>;
}

export interface ShardRef {
  catalog: string;
  shard: number;
  rows: number;
}

export interface JobPrepareInput {
  jobName: string;
  smiles: string;
  dbNames: string[];
}
export interface JobPrepareResult {
  /** Query fingerprint, base64 (256 bytes: small enough for history). */
  fp: string;
  canonical: string;
  shards: ShardRef[];
}

export interface JobScanInput {
  jobName: string;
  catalog: string;
  shard: number;
  fp: string;
  k: number;
}
export interface JobPlaceInput {
  shards: ShardRef[];
}
export interface JobPlaceResult {
  /** Per shard, the task queue of the worker to scan it, or null for the shared scan queue. */
  queues: (string | null)[];
  /** Per shard, that worker's id (for the job's log and tests). */
  workers: (string | null)[];
}

export interface JobScanResult {
  key: string;
  count: number;
  minScore: number;
}

export interface JobMergeInput {
  jobName: string;
  parts: (ShardRef & { key: string })[];
  k: number;
  /** Query fingerprint, base64, for the exact similarities of the kept rows. */
  fp: string;
  query: string;
}
export interface JobMergeResult {
  key: string;
  rows: number;
}

export interface JobRecordInput extends JobUpdate {
  jobName: string;
}

/** Object keys of a job's files (deterministic, so a retried activity overwrites its own output). */
export const jobKeys = {
  part: (job: string, catalog: string, shard: number) => `jobs/${job}/parts/${catalog}-${shard}.bin`,
  result: (job: string) => `jobs/${job}/result.arrow`,
};

const invalid = (msg: string) =>
  ApplicationFailure.create({ message: msg, type: INVALID_INPUT_FAILURE, nonRetryable: true });

/**
 * A shard whose stored bytes do not match their published SHA-256 (after one refetch) is
 * reported, never scored: retrying would fetch the same bytes, so the job fails naming it.
 */
export async function verifiedShard(cache: ShardCache, catalog: string, shard: number) {
  try {
    return await cache.shard(catalog, shard);
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'checksum_mismatch' || code === 'catalog_corrupt')
      throw ApplicationFailure.create({
        message: `shard ${shard} of catalog ${catalog} is corrupt in the object store: ${(err as Error).message}`,
        type: CORRUPT_SHARD_FAILURE,
        nonRetryable: true,
      });
    throw err;
  }
}

/** Heartbeats when running inside an activity; a no-op when called directly (tests, benches). */
export function beat(details?: unknown): void {
  try {
    Context.current().heartbeat(details);
  } catch {
    // not in an activity context
  }
}

/** The activity's cancellation signal (engine work given it stops on cancel); none outside an activity. */
export function cancellationSignal(): AbortSignal | undefined {
  try {
    return Context.current().cancellationSignal;
  } catch {
    return undefined;
  }
}

/**
 * The failure of an activity stopped because its worker is shutting down (not because the job was
 * cancelled), or undefined: non-retryable, so Temporal spends no attempt on it, and typed, so the
 * workflow can dispatch the work again (synthon slices do). Details: this attempt's number.
 */
export function shutdownFailure(): ApplicationFailure | undefined {
  try {
    const ctx = Context.current();
    const reason: unknown = ctx.cancellationSignal.reason;
    if (!(reason instanceof CancelledFailure) || reason.message !== 'WORKER_SHUTDOWN') return undefined;
    return ApplicationFailure.create({
      message: 'stopped by its worker shutting down',
      type: WORKER_SHUTDOWN_FAILURE,
      nonRetryable: true,
      details: [ctx.info.attempt],
    });
  } catch {
    return undefined; // not in an activity context
  }
}

export function cancelled(): boolean {
  try {
    return Context.current().cancellationSignal.aborted;
  } catch {
    return false;
  }
}

/** The job activities over the worker's store, object store and catalog directory. */
export function createJobActivities(deps: JobActivityDeps) {
  let cache: ShardCache | undefined = deps.shards;
  // Opened on first use: a worker that never scans never lists the catalog directory.
  const shards = () => (cache ??= createShardCache(deps.catalogDir));

  return {
    /** Parses the query (invalid → non-retryable) and lists the shards of the named catalogs. */
    async jobPrepare(input: JobPrepareInput): Promise<JobPrepareResult> {
      const rd = await getRDKit();
      const parsed = parseMolecule(rd, input.smiles);
      if ('error' in parsed)
        throw invalid(`invalid search_input ${JSON.stringify(input.smiles.slice(0, 200))}: ${parsed.error}`);
      if (!input.dbNames.length) throw invalid('no database to search');
      const refs: ShardRef[] = [];
      for (const id of input.dbNames) {
        let catalog;
        try {
          catalog = await shards().catalog(id);
        } catch (err) {
          throw invalid(`unknown database ${JSON.stringify(id)}: ${(err as Error).message}`);
        }
        catalog.manifest.shards.forEach((s, i) => refs.push({ catalog: id, shard: i, rows: s.rows }));
      }
      return {
        fp: Buffer.from(parsed.fp).toString('base64'),
        canonical: parsed.canonicalSmiles,
        shards: refs,
      };
    },

    /**
     * Where each shard's scan should run: the live fleet member holding the shard in memory, else
     * its rendezvous owner (which fetches it), else the shared queue (no fleet). Cheap and
     * read-only, so it is recomputed on retry.
     */
    async jobPlace(input: JobPlaceInput): Promise<JobPlaceResult> {
      const live = deps.fleet ? await deps.fleet() : [];
      const queues: (string | null)[] = [];
      const workers: (string | null)[] = [];
      for (const s of input.shards) {
        const sha = (await shards().catalog(s.catalog)).manifest.shards[s.shard]?.sha256 ?? '';
        const m = live.length ? routeShard(live, s.catalog, s.shard, sha) : undefined;
        queues.push(m?.queue ?? null);
        workers.push(m?.workerId ?? null);
      }
      return { queues, workers };
    },

    /**
     * Top-k rows of one shard, written as a part to the object store; returns only its key and
     * size. Idempotent: a part already written by an earlier attempt is reused.
     */
    async jobScanShard(input: JobScanInput): Promise<JobScanResult> {
      const key = jobKeys.part(input.jobName, input.catalog, input.shard);
      const store = deps.objects;
      beat({ stage: 'start' });
      if ((await store.head(key)) !== undefined) {
        const part = decodePart(await store.getBytes(key));
        return {
          key,
          count: part.rows.length,
          minScore: part.rows.length ? part.scores[part.rows.length - 1] : 0,
        };
      }
      const shard = await verifiedShard(shards(), input.catalog, input.shard);
      if (cancelled()) throw new Error('cancelled');
      const fp = new Uint8Array(Buffer.from(input.fp, 'base64'));
      if (fp.length !== 256) throw invalid('query fingerprint must be 256 bytes');
      const top = scanShardTopK(shard, fp, { k: input.k });
      beat({ stage: 'scanned', rows: top.rows.length });
      await store.put(key, encodePart(top.rows, top.scores), 'application/octet-stream');
      return { key, count: top.rows.length, minScore: top.rows.length ? top.scores[top.rows.length - 1] : 0 };
    },

    /** Merges the parts (unique by product id), joins the catalog columns, writes result.arrow. */
    async jobMerge(input: JobMergeInput): Promise<JobMergeResult> {
      const store = deps.objects;
      const key = jobKeys.result(input.jobName);
      // A retry after the result was written (and parts deleted) must not redo the merge.
      if ((await store.head(key)) !== undefined)
        return { key, rows: decodeJobResult(await store.getBytes(key)).rows };
      const parts: MergePart[] = [];
      for (const p of input.parts) {
        const part = decodePart(await store.getBytes(p.key));
        parts.push({ catalog: p.catalog, shard: p.shard, rows: part.rows, scores: part.scores });
        beat({ stage: 'parts', read: parts.length });
      }
      // One shard at a time, keeping only the rows that reach the result (jobs-merge-rows.ts).
      const { merged, sources } = await mergeBounded(parts, input.k, async (p) => {
        const shard = await verifiedShard(shards(), p.catalog, p.shard);
        beat({ stage: 'read', shard: p.shard });
        return shard;
      });
      const queryFp = new Uint8Array(Buffer.from(input.fp, 'base64'));
      const result = joinResult(merged, sources, queryFp);
      result.metadata = {
        'molsearch.job': input.jobName,
        'molsearch.query': input.query,
        'molsearch.k': String(input.k),
      };
      beat({ stage: 'merged', rows: result.rows });
      await store.put(key, encodeJobResult(result), 'application/vnd.apache.arrow.file');
      // Parts are only needed until the result exists; failing to delete them is harmless.
      await Promise.all(input.parts.map((p) => store.delete(p.key).catch(() => {})));
      return { key, rows: result.rows };
    },

    /** Records status, progress or the outcome of a job (final statuses are never overwritten). */
    async jobRecord(input: JobRecordInput): Promise<void> {
      const { jobName, ...update } = input;
      await deps.jobs.update(jobName, update);
      deps.log.info({ job: jobName, ...update }, 'job updated');
    },
  };
}

export type JobActivities = ReturnType<typeof createJobActivities>;
