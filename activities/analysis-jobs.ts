/**
 * Activities of analysis jobs (workflows/analysis-job-workflow.ts): prepare (count the chunks,
 * check the databases), one chunk (its part written to the object store under a deterministic key,
 * so a retry after a worker restart overwrites its own part), finish (assemble the parts into the
 * result files and the summary). The request is read from the object store, never from history.
 */
import { ApplicationFailure } from '@temporalio/common';
import type { Logger } from '../platform/logger.ts';
import type { ObjectStore } from '../platform/object-store/index.ts';
import { getRDKit } from '../engine/chem/index.ts';
import {
  createAnalysisPool,
  type AnalysisPool,
  embeddingsChunk,
  matrixChunk,
  nearestOfSmiles,
  nearestScores,
  parseChunk,
  scoreDistribution,
  shardQueries,
} from '../engine/analysis/index.ts';
import { csvCell, npyFloat32 } from '../engine/export/npy.ts';
import {
  ANALYSIS_CHUNK_ROWS,
  analysisJobKeys as keys,
  INVALID_INPUT_FAILURE,
  type AnalysisJobRequest,
} from '../workflows/contracts.ts';
import type { ShardCache } from './jobs-shards.ts';
import { analysisOnce, finishOnce, whileBeating } from './analysis-jobs-once.ts';
import { beat } from './jobs.ts';

const invalid = (msg: string) =>
  ApplicationFailure.create({ message: msg, type: INVALID_INPUT_FAILURE, nonRetryable: true });

/** The shards, heartbeating before each is scanned (a long chunk shows it is alive per shard). */
function* beating<T>(shards: readonly T[]): Generator<T> {
  for (const [i, shard] of shards.entries()) {
    beat({ scanning: i });
    yield shard;
  }
}

const floats = (bytes: Uint8Array) => {
  const copy = bytes.byteOffset % 4 === 0 ? bytes : bytes.slice();
  return new Float32Array(copy.buffer, copy.byteOffset, copy.byteLength / 4);
};
const bytesOf = (v: Float32Array) => new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
const chunkOf = <T>(list: readonly T[], i: number) =>
  list.slice(i * ANALYSIS_CHUNK_ROWS, (i + 1) * ANALYSIS_CHUNK_ROWS);

export function createAnalysisJobActivities(deps: { log: Logger; objects: ObjectStore; shards: ShardCache }) {
  // One analysis thread for clusterings and maps, started on first use (idle threads do not keep
  // the worker process alive).
  let pool: AnalysisPool | undefined;
  const threads = () => (pool ??= createAnalysisPool({ threads: 1, maxQueue: 8 }));
  const request = async (job: string): Promise<AnalysisJobRequest> =>
    JSON.parse(
      Buffer.from(await deps.objects.getBytes(keys.request(job))).toString('utf8'),
    ) as AnalysisJobRequest;
  const catalog = async (id: string) => {
    try {
      return await deps.shards.catalog(id);
    } catch {
      throw invalid(`database ${id} is not available to the job workers`);
    }
  };
  /** Every shard of the target databases, loaded one at a time (the shard cache keeps them). */
  async function* targetShards(dbNames: string[]) {
    for (const db of dbNames) {
      const c = await catalog(db);
      for (let i = 0; i < c.manifest.shards.length; i++) {
        beat({ db, shard: i });
        yield await deps.shards.shard(db, i);
      }
    }
  }
  async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
    const out: T[] = [];
    for await (const x of it) out.push(x);
    return out;
  }

  return {
    /** The number of chunks of the job's request; a missing database fails the job at once. */
    async analysisPrepare(input: { jobName: string }): Promise<{ chunks: number }> {
      const req = await request(input.jobName);
      const chunks = (n: number) => Math.max(1, Math.ceil(n / ANALYSIS_CHUNK_ROWS));
      switch (req.op) {
        case 'matrix':
          return { chunks: chunks(req.list1.length) };
        case 'embeddings_file':
          return { chunks: chunks(req.smiles.length) };
        case 'cluster':
        case 'visualize_file':
          return { chunks: 1 };
        case 'database_similarity': {
          for (const db of req.dbNames) await catalog(db);
          if (req.sourceDb) return { chunks: (await catalog(req.sourceDb)).manifest.shards.length };
          return { chunks: chunks(req.smiles!.length) };
        }
      }
    },

    /** One chunk: its rows of the matrix, nearest scores or embeddings, written as a part. */
    async analysisChunk(input: { jobName: string; chunk: number }): Promise<{ key: string }> {
      const req = await request(input.jobName);
      const key = keys.part(input.jobName, input.chunk);
      const rd = await getRDKit();
      beat({ chunk: input.chunk });
      let part: Float32Array;
      if (req.op === 'matrix') {
        const rows = parseChunk(rd, chunkOf(req.list1, input.chunk), 'smiles_list_1');
        const cols = parseChunk(rd, req.list2 ?? req.list1, req.list2 ? 'smiles_list_2' : 'smiles_list_1');
        part = matrixChunk(rows, cols, req.searchType);
      } else if (req.op === 'database_similarity') {
        const shards = await collect(targetShards(req.dbNames));
        part = req.sourceDb
          ? nearestScores(shardQueries(await deps.shards.shard(req.sourceDb, input.chunk)), beating(shards))
          : nearestOfSmiles(rd, chunkOf(req.smiles!, input.chunk), beating(shards));
      } else if (req.op === 'cluster' || req.op === 'visualize_file') {
        // one step over every molecule: its answer (JSON) is the part
        const answer = await whileBeating(() => analysisOnce(threads(), req));
        await deps.objects.put(key, JSON.stringify(answer), 'application/json');
        return { key };
      } else {
        const r = embeddingsChunk(rd, chunkOf(req.smiles, input.chunk), req.kind);
        part = r.values;
        const index = JSON.stringify({ canonical: r.canonical, errors: r.errors });
        await deps.objects.put(`${key}.json`, index, 'application/json');
      }
      await deps.objects.put(key, bytesOf(part));
      return { key };
    },

    /** Assembles the parts into the result files and writes the summary; returns its key. */
    async analysisFinish(input: {
      jobName: string;
      parts: string[];
    }): Promise<{ resultKey: string; rows: number }> {
      const req = await request(input.jobName);
      const job = input.jobName;
      if (req.op === 'cluster' || req.op === 'visualize_file') {
        const answer = JSON.parse(Buffer.from(await deps.objects.getBytes(input.parts[0])).toString('utf8'));
        const summary = await finishOnce(deps.objects, job, req, answer);
        const resultKey = keys.result(job);
        await deps.objects.put(resultKey, JSON.stringify(summary), 'application/json');
        return { resultKey, rows: req.smiles.length };
      }
      const parts: Float32Array[] = [];
      for (const k of input.parts) {
        beat({ part: k });
        parts.push(floats(await deps.objects.getBytes(k)));
      }
      const total = parts.reduce((n, p) => n + p.length, 0);
      const all = new Float32Array(total);
      let at = 0;
      for (const p of parts) {
        all.set(p, at);
        at += p.length;
      }
      let summary: Record<string, unknown>;
      let rows: number;
      if (req.op === 'matrix') {
        const cols = (req.list2 ?? req.list1).length;
        rows = req.list1.length;
        await deps.objects.put(keys.file(job, 'matrix.npy'), npyFloat32(rows, cols, all));
        summary = { op: 'similarity_matrix', search_type: req.searchType, rows, cols, files: ['matrix.npy'] };
      } else if (req.op === 'database_similarity') {
        rows = all.length;
        await deps.objects.put(keys.file(job, 'nearest.npy'), npyFloat32(rows, 1, all));
        let distribution;
        try {
          distribution = scoreDistribution(all, req.bins, req.sourceDb ? 'source_db' : 'search_input');
        } catch (err) {
          throw invalid((err as Error).message);
        }
        summary = {
          op: 'database_similarity',
          db_names: req.dbNames,
          ...(req.sourceDb ? { source_db: req.sourceDb } : {}),
          molecules: rows,
          without_neighbour: all.filter((x) => Number.isNaN(x)).length,
          distribution,
          files: ['nearest.npy'],
        };
      } else {
        rows = req.smiles.length;
        const lines = ['row,smiles,canonical_smiles,error'];
        let errors = 0;
        for (const [c, k] of input.parts.entries()) {
          const idx = JSON.parse(Buffer.from(await deps.objects.getBytes(`${k}.json`)).toString('utf8')) as {
            canonical: (string | null)[];
            errors: (string | null)[];
          };
          idx.canonical.forEach((can, i) => {
            const row = c * ANALYSIS_CHUNK_ROWS + i;
            if (idx.errors[i] !== null) errors++;
            lines.push([row, req.smiles[row], can, idx.errors[i]].map(csvCell).join(','));
          });
        }
        const dims = total / Math.max(1, rows);
        await deps.objects.put(req.npyKey, npyFloat32(rows, dims, all));
        await deps.objects.put(req.indexKey, lines.join('\r\n') + '\r\n', 'text/csv; charset=utf-8');
        summary = {
          op: 'embeddings_file',
          input_file: req.inputFile,
          dest_folder: req.destFolder,
          search_type: req.searchType,
          embedding_type: req.kind,
          dimensions: dims,
          count: rows,
          errors,
          output_files: [req.npyPath, req.indexPath],
        };
      }
      const resultKey = keys.result(job);
      await deps.objects.put(resultKey, JSON.stringify(summary), 'application/json');
      deps.log.info({ job, op: req.op, rows }, 'analysis job finished');
      return { resultKey, rows };
    },
  };
}

export type AnalysisJobActivities = ReturnType<typeof createAnalysisJobActivities>;
