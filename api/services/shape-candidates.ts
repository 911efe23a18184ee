/**
 * The contract of the 3D search stages (shape-stages.ts builds them): the candidates that flow
 * through them, their scores after the exact stage, and the stages' interface the search paths
 * (shape-search, shape-rerank, shape-objectives) are written against.
 */
import type { ShardData } from '../../engine/catalog/index.ts';
import type { Shard3d } from '../../engine/catalog/three-d-reader.ts';
import type { Molecule3d } from '../../engine/catalog/three-d-schema.ts';

/** Which first-stage score ranks: the shape grid (shape, consensus) or the ESP pre-stage (ESP). */
export type FirstStageMetric = 'shape' | 'esp';

/** A catalog row on the way through the stages. */
export interface Candidate {
  db: string;
  shard: number;
  row: number;
  /** Score of the stage that proposed the row: descriptor similarity, or f32 Morgan Tanimoto. */
  first: number;
}

/** A candidate after the exact stage (scores averaged over the queries when there are several). */
export interface ScoredCandidate extends Candidate {
  /** Gaussian shape Tanimoto at the best alignment; null when the row has no conformers. */
  shape: number | null;
  /** espsim's ESP Carbo at that alignment; null when the row has no conformers. */
  esp: number | null;
  /** Exact (double) Morgan r2/2048 Tanimoto. */
  morgan: number;
}

export interface ShapeStages {
  /** The rows of each shard of a 3D-ready catalog (loaded once, kept). */
  shards3d(db: string): Promise<Shard3d[]>;
  /**
   * The `limit` best rows by first-stage score, over every shard of `dbNames`: the shape grid (or
   * for `esp` the ESP pre-stage over each shard's pose-aware charge grid pool, engine/shape/
   * esp-prescreen.ts) when every shard has grid tables, else the USRCAT-style descriptors; with
   * several queries a row scores the mean of its per-query scores (for `esp` the charge grid's).
   * Rows without conformers are skipped.
   */
  firstStage(
    queries: Molecule3d[],
    dbNames: string[],
    limit: number,
    metric?: FirstStageMetric,
  ): Promise<{ candidates: Candidate[]; rows: number; method: string }>;
  /**
   * The first stage alone for a given USRCAT-style descriptor vector (60 floats per conformer, as
   * the sidecars store): the `limit` best rows of `dbNames` by descriptor similarity.
   */
  descriptorStage(
    vector: Float32Array,
    dbNames: string[],
    limit: number,
  ): Promise<{ candidates: Candidate[]; rows: number }>;
  /** The k best rows by Morgan Tanimoto (search pool, f32 scores and order), as candidates. */
  morganStage(fp: Uint8Array, dbNames: string[], k: number): Promise<Candidate[]>;
  /**
   * Exact scores of every candidate against every query (means over queries); candidates keep
   * their order. A candidate without conformers gets null shape and ESP.
   */
  exact(queries: Molecule3d[], fps: Uint8Array[], candidates: Candidate[]): Promise<ScoredCandidate[]>;
  /** Exact (double) Morgan Tanimoto of a candidate to a query fingerprint. */
  morgan(fp: Uint8Array, c: Candidate): number;
  /** The catalog shard holding a candidate (to read its columns). */
  shard(c: Candidate): ShardData;
  /** Row index across the catalog's shards in manifest order (the v2 library's row numbers). */
  globalRow(c: Candidate): number;
  /** The candidate at a row index across the catalog's shards (globalRow's inverse). */
  fromGlobalRow(db: string, row: number): Candidate;
}

export const candidateKey = (c: Candidate) => `${c.db}\u0000${c.shard}\u0000${c.row}`;

/** Candidates of `b` not already in `a`, appended (a's order first). */
export function unionCandidates(a: Candidate[], b: Candidate[]): Candidate[] {
  const seen = new Set(a.map(candidateKey));
  return [...a, ...b.filter((c) => !seen.has(candidateKey(c)))];
}
