/**
 * The per-chunk steps of analysis jobs (workflows/analysis-job-workflow.ts): each takes one chunk
 * of a large input and returns plain typed arrays that the job writes as a part, so parts computed
 * on different workers, or again after a retry, assemble into exactly the serial result.
 * Unparsable molecules become NaN rows (the sync answers' nulls), never a failure.
 */
import type { RDKitModule } from '../../chem/rdkit.ts';
import type { ShardLike } from '../../search/shard-memory.ts';
import { MORGAN_DIMENSIONS } from '../embed/embeddings.ts';
import { fromPacked, type FingerprintSet } from '../fingerprints.ts';
import { mergeNearest, nearestInShard, type NearestPart } from '../similarity/database.ts';
import { metricFor } from '../similarity/metrics.ts';
import { similarityRows } from '../similarity/operations.ts';
import { embeddingKind } from './embed.ts';
import { parseList, type ParsedList } from './molecules.ts';

/** Parses a chunk of any size (the job limits were checked when the job was submitted). */
export function parseChunk(
  rd: RDKitModule,
  smiles: readonly string[],
  field: string,
  kind = 'bits',
): ParsedList {
  return parseList(rd, smiles, field, Number.MAX_SAFE_INTEGER, embeddingKind(kind));
}

/**
 * Rows of a similarity matrix: the chunk's molecules (rows) against every column molecule,
 * row-major float32, NaN in the rows and columns of unparsable molecules.
 */
export function matrixChunk(rows: ParsedList, cols: ParsedList, searchType: string): Float32Array {
  const metric = metricFor(searchType);
  const n = rows.canonical.length;
  const m = cols.canonical.length;
  const out = new Float32Array(n * m).fill(NaN);
  if (!rows.valid.length || !cols.valid.length) return out;
  const block = similarityRows(metric, rows.fps, cols.fps, 0, rows.valid.length);
  const w = cols.valid.length;
  rows.valid.forEach((i, r) => cols.valid.forEach((j, c) => (out[i * m + j] = block[r * w + c])));
  return out;
}

/**
 * Each query's best Tanimoto over the shards of a database (exact: shard by shard, the best so far
 * as the floor of the next scan). NaN for a query without any row to compare with.
 */
export function nearestScores(queries: FingerprintSet, shards: Iterable<ShardLike>): Float32Array {
  const parts: NearestPart[] = [];
  let best: Float32Array | undefined;
  for (const shard of shards) {
    parts.push(nearestInShard(shard, queries, best));
    best = mergeNearest(parts, queries.n).scores;
  }
  const out = new Float32Array(queries.n).fill(NaN);
  if (best) best.forEach((s, i) => Number.isFinite(s) && (out[i] = s));
  return out;
}

/** Nearest scores of a SMILES chunk: NaN for unparsable rows. */
export function nearestOfSmiles(
  rd: RDKitModule,
  smiles: readonly string[],
  shards: Iterable<ShardLike>,
): Float32Array {
  const list = parseChunk(rd, smiles, 'search_input');
  const out = new Float32Array(smiles.length).fill(NaN);
  if (!list.valid.length) return out;
  const got = nearestScores(list.fps, shards);
  list.valid.forEach((i, r) => (out[i] = got[r]));
  return out;
}

/** A catalog shard's own fingerprints as queries (copied out of kernel memory). */
export function shardQueries(shard: ShardLike): FingerprintSet {
  return fromPacked(shard.fingerprints.slice(0, shard.rows * 256));
}

/** Morgan embeddings of a chunk: rows × 2048 float32 (zeros for unparsable rows), canonical SMILES, errors. */
export function embeddingsChunk(
  rd: RDKitModule,
  smiles: readonly string[],
  kind: string,
): { values: Float32Array; canonical: (string | null)[]; errors: (string | null)[] } {
  const list = parseChunk(rd, smiles, 'input_file', kind);
  const values = new Float32Array(smiles.length * MORGAN_DIMENSIONS);
  list.valid.forEach((i, r) => values.set(list.vectors[r], i * MORGAN_DIMENSIONS));
  return { values, canonical: list.canonical, errors: list.errors };
}
