/**
 * Activities of espsim jobs (docs/search.md, "3D jobs"): store the query's conformers once (the
 * chem3d worker made them), score one shard's rows against them (first stage by `shortlist`, or
 * every row), and merge the shards' parts into a job result carrying both scores and each hit's
 * conformer aligned onto the query. Rows without a 3D model are skipped and counted.
 */
import { join } from 'node:path';
import type { Table } from 'apache-arrow';
import { ApplicationFailure } from '@temporalio/common';
import type { Logger } from '../platform/logger.ts';
import type { ObjectStore } from '../platform/object-store/index.ts';
import { createLru } from '../platform/lru.ts';
import { openCatalog } from '../engine/catalog/reader.ts';
import { loadShard3d, molecule3d, type Shard3d } from '../engine/catalog/three-d-reader.ts';
import { moleculeFromBase64, type Molecule3d } from '../engine/catalog/three-d-schema.ts';
import { decodeJobResult, encodeJobResult, METADATA_QUERY_3D } from '../engine/export/index.ts';
import {
  applyTransform,
  conformerCoords,
  type ScoredCandidate,
  type ShapeMetric,
  type ShapePool,
} from '../engine/shape/index.ts';
import { INVALID_INPUT_FAILURE, type EmbeddedWire } from '../workflows/contracts.ts';
import { beat, cancelled, verifiedShard, type ShardRef } from './jobs.ts';
import type { ShardCache } from './jobs-shards.ts';
import { decodePart3d, encodePart3d, type Part3d } from './jobs-3d-parts.ts';
import { fillResult, mergeParts, type MergePart } from './jobs-merge.ts';
import { createJobFirstStage, type JobFirstStageMethod } from './jobs-3d-first-stage.ts';

export interface Job3dActivityDeps {
  log: Logger;
  objects: ObjectStore;
  catalogDir: string;
  shards: ShardCache;
  /** Threads of the exact stage: the worker's one shape pool, shared with the 3D synthon jobs. */
  shapePool: ShapePool;
  /** Conformers up to which a catalog's first stage is the grids (default GRID_MAX_CONFORMERS). */
  gridMaxConformers?: number;
}

export interface JobStoreQuery3dInput {
  jobName: string;
  smiles: string;
  molecule: EmbeddedWire;
}
export interface JobStoreQuery3dResult {
  key: string;
  atoms: number;
  confs: number;
}

export interface JobScan3dInput {
  jobName: string;
  catalog: string;
  shard: number;
  queryKey: string;
  k: number;
  metric: ShapeMetric;
  /** First-stage shortlist per shard; 0 scores every row exactly (very_accurate). */
  shortlist: number;
  /**
   * Every catalog of the job (default: this one): the grid first stage applies when all are
   * within GRID_MAX_CONFORMERS, as in the synchronous search (jobs-3d-first-stage.ts).
   */
  catalogs?: string[];
}
export interface JobScan3dResult {
  key: string;
  count: number;
  scored: number;
  rejected: number;
  /** The ranking that shortlisted the shard; absent when every row was scored (or on a reused part). */
  firstStage?: JobFirstStageMethod;
}

export interface JobMerge3dInput {
  jobName: string;
  parts: (ShardRef & { key: string })[];
  k: number;
  metric: ShapeMetric;
  query: string;
  queryKey: string;
}
export interface JobMerge3dResult {
  key: string;
  rows: number;
}

export const job3dKeys = {
  query: (job: string) => `jobs/${job}/query3d.json`,
  part: (job: string, catalog: string, shard: number) => `jobs/${job}/parts/${catalog}-${shard}.3d.bin`,
  result: (job: string) => `jobs/${job}/result.arrow`,
};

/** Candidates a call to the shape pool scores: the unit of heartbeat and cancellation. */
const CHUNK = 64;

export function createJob3dActivities(deps: Job3dActivityDeps) {
  const shapePool = () => deps.shapePool;
  const firstStage = createJobFirstStage({
    catalogDir: deps.catalogDir,
    pool: shapePool,
    gridMaxConformers: deps.gridMaxConformers,
  });
  const queries = createLru<Promise<Molecule3d>>({ maxBytes: 64 * 2 ** 20, maxEntries: 32, size: () => 1 });
  // Sidecars by their file's bytes (one shared buffer each), bounded like the shard cache.
  const sidecars = createLru<Promise<Shard3d>>({
    maxBytes: 1.5 * 2 ** 30,
    maxEntries: 256,
    size: (s) => s.coords.buffer.byteLength,
  });

  const query3d = (key: string): Promise<Molecule3d> => {
    let p = queries.get(key);
    if (!p) {
      p = deps.objects.getBytes(key).then((b) => {
        const w = JSON.parse(Buffer.from(b).toString('utf8')) as { molecule: EmbeddedWire };
        if (!w.molecule.ok) throw new Error('stored query has no 3D model');
        return moleculeFromBase64(w.molecule);
      });
      p.catch(() => queries.delete(key));
      queries.set(key, p);
    }
    return p;
  };
  const shard3d = (catalog: string, shard: number): Promise<Shard3d> => {
    const key = `${catalog}/${shard}`;
    let p = sidecars.get(key);
    if (!p) {
      p = (async () => {
        const c = await openCatalog(join(deps.catalogDir, catalog));
        if (!c.manifest.three_d)
          throw ApplicationFailure.create({
            message: `database ${catalog} is not 3D-ready (its 3D stage has not completed)`,
            type: INVALID_INPUT_FAILURE,
            nonRetryable: true,
          });
        return loadShard3d(c, shard);
      })();
      p.catch(() => sidecars.delete(key));
      sidecars.set(key, p);
    }
    return p;
  };

  return {
    /** Writes the query's conformers (a few KB to ~100 KB) where the shard scans read them. */
    async jobStoreQuery3d(input: JobStoreQuery3dInput): Promise<JobStoreQuery3dResult> {
      const key = job3dKeys.query(input.jobName);
      if (!input.molecule.ok) throw new Error('the query has no 3D model');
      const body = JSON.stringify({ smiles: input.smiles, molecule: input.molecule });
      await deps.objects.put(key, new TextEncoder().encode(body), 'application/json');
      return { key, atoms: input.molecule.atomCount, confs: input.molecule.confCount };
    },

    /**
     * One shard's best `k` rows by exact 3D alignment, written as a part; returns its key and
     * counts. Idempotent (a part of an earlier attempt is reused); heartbeats every chunk and
     * stops at cancellation. A retry rescored the shard from the start (parts are the resume unit).
     */
    async jobScanShard3d(input: JobScan3dInput): Promise<JobScan3dResult> {
      const key = job3dKeys.part(input.jobName, input.catalog, input.shard);
      beat({ stage: 'start' });
      if ((await deps.objects.head(key)) !== undefined) {
        const p = decodePart3d(await deps.objects.getBytes(key));
        return { key, count: p.rows.length, scored: p.scored, rejected: p.rejected };
      }
      const [query, s] = await Promise.all([query3d(input.queryKey), shard3d(input.catalog, input.shard)]);
      let rejected = 0;
      for (let r = 0; r < s.rows; r++) if (s.confCounts[r] === 0) rejected++;
      let cands: Int32Array;
      let method: JobFirstStageMethod | undefined;
      if (input.shortlist > 0 && input.shortlist < s.rows) {
        // The synchronous search's first stage, per shard and with its shortlist size: every row it
        // shortlists from this shard is among ours (docs/search.md, "3D jobs").
        // Building a shard's grid tables takes ~2 ms per conformer on a pool thread: keep beating.
        const ticker = setInterval(() => beat({ stage: 'first-stage' }), 5_000);
        try {
          ({ rows: cands, method } = await firstStage.shortlist({
            query,
            shard: s,
            catalog: input.catalog,
            catalogs: input.catalogs ?? [input.catalog],
            metric: input.metric,
            k: input.shortlist,
          }));
        } finally {
          clearInterval(ticker);
        }
      } else cands = Int32Array.from({ length: s.rows }, (_, r) => r).filter((r) => s.confCounts[r] > 0);
      const scored: (ScoredCandidate & { row: number })[] = [];
      for (let i = 0; i < cands.length; i += CHUNK) {
        if (cancelled()) throw new Error('cancelled');
        const rows = cands.subarray(i, i + CHUNK);
        const sets = Array.from(rows, (row) => molecule3d(s, row)!);
        // Jobs are bulk work: requests someone waits for overtake them (engine/shape/pool.ts).
        const hits = await shapePool().scoreShortlist(
          query,
          sets,
          { metric: input.metric, k: sets.length },
          { lane: 'bulk' },
        );
        for (const h of hits) scored.push({ ...h, row: rows[h.index], index: i + h.index });
        beat({ stage: 'scoring', done: Math.min(cands.length, i + CHUNK), of: cands.length });
      }
      const m = input.metric;
      scored.sort((a, b) => b[m] - a[m] || a.index - b.index);
      const top = scored.slice(0, input.k);
      const part: Part3d = {
        rows: Int32Array.from(top, (h) => h.row),
        shape: Float64Array.from(top, (h) => h.shape),
        esp: Float64Array.from(top, (h) => h.esp),
        queryConf: Int32Array.from(top, (h) => h.queryConf),
        candidateConf: Int32Array.from(top, (h) => h.candidateConf),
        transforms: new Float64Array(top.length * 12),
        scored: cands.length,
        rejected,
      };
      top.forEach((h, j) => part.transforms.set(h.transform, j * 12));
      await deps.objects.put(key, encodePart3d(part), 'application/octet-stream');
      return { key, count: top.length, scored: cands.length, rejected, firstStage: method };
    },

    /**
     * Merges the 3D parts (unique by product id, best metric first), joins the catalog columns and
     * places each hit's best conformer onto the query; writes result.arrow.
     */
    async jobMerge3d(input: JobMerge3dInput): Promise<JobMerge3dResult> {
      const store = deps.objects;
      const key = job3dKeys.result(input.jobName);
      if ((await store.head(key)) !== undefined)
        return { key, rows: decodeJobResult(await store.getBytes(key)).rows };
      const parts: Part3d[] = [];
      const merge: MergePart[] = [];
      const tables: Table[] = [];
      for (const p of input.parts) {
        const part = decodePart3d(await store.getBytes(p.key));
        parts.push(part);
        merge.push({ catalog: p.catalog, shard: p.shard, rows: part.rows, scores: part[input.metric] });
        tables.push((await verifiedShard(deps.shards, p.catalog, p.shard)).table);
        beat({ stage: 'read', shard: p.shard });
      }
      const ids = tables.map((t) => t.getChild('product_id')!);
      const merged = mergeParts(merge, input.k, (p, row) => ids[p].get(row) as string);
      const n = merged.row.length;
      // Position of each merged row inside its part (rows are unique within a part).
      const at = parts.map((p) => new Map(Array.from(p.rows, (row, j) => [row, j])));
      const pos = Int32Array.from({ length: n }, (_, m) => at[merged.part[m]].get(merged.row[m])!);
      const sim = Float64Array.from({ length: n }, (_, m) => parts[merged.part[m]][input.metric][pos[m]]);
      const order = Int32Array.from({ length: n }, (_, m) => m);
      const result = fillResult(
        merged,
        order,
        sim,
        input.parts.map((p, i) => ({ catalog: p.catalog, table: tables[i] })),
      );
      const elements: Uint8Array[] = [];
      const coords: Float32Array[] = [];
      for (let m = 0; m < n; m++) {
        const part = parts[merged.part[m]];
        const j = pos[m];
        const ref = input.parts[merged.part[m]];
        const set = molecule3d(await shard3d(ref.catalog, ref.shard), merged.row[m])!;
        const xyz = conformerCoords(set, part.candidateConf[j]);
        coords.push(Float32Array.from(applyTransform(xyz, part.transforms.subarray(j * 12, j * 12 + 12))));
        elements.push(Uint8Array.from(set.elements));
      }
      result.threeD = {
        shape: Float64Array.from({ length: n }, (_, m) => parts[merged.part[m]].shape[pos[m]]),
        esp: Float64Array.from({ length: n }, (_, m) => parts[merged.part[m]].esp[pos[m]]),
        queryConf: Int32Array.from({ length: n }, (_, m) => parts[merged.part[m]].queryConf[pos[m]]),
        elements,
        coords,
      };
      const q = JSON.parse(Buffer.from(await store.getBytes(input.queryKey)).toString('utf8')) as {
        smiles: string;
        molecule: Extract<EmbeddedWire, { ok: true }>;
      };
      const { atomCount, confCount, elements: qe, coords: qc } = q.molecule;
      result.metadata = {
        'molsearch.job': input.jobName,
        'molsearch.query': input.query,
        'molsearch.k': String(input.k),
        'molsearch.search_type': input.metric === 'esp' ? 'espsim_electrostatic' : 'espsim_shape',
        [METADATA_QUERY_3D]: JSON.stringify({
          smiles: q.smiles,
          atomCount,
          confCount,
          elements: qe,
          coords: qc,
        }),
      };
      beat({ stage: 'merged', rows: n });
      await store.put(key, encodeJobResult(result), 'application/vnd.apache.arrow.file');
      await Promise.all(input.parts.map((p) => store.delete(p.key).catch(() => {})));
      return { key, rows: n };
    },
  };
}

export type Job3dActivities = ReturnType<typeof createJob3dActivities>;
