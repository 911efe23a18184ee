/**
 * `catalog build`: streams an input file in chunks to worker threads (each with its own RDKit),
 * checkpoints every parsed chunk under DIR/.build (a rerun resumes), then assembles the catalog.
 */
import { availableParallelism } from 'node:os';
import { mkdir, readFile, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { rdkitVersion } from '../../chem/rdkit.ts';
import { DEFAULT_MODEL_DIR } from '../../admet/onnx-pool.ts';
import { ADMET_NAMES, DEFAULT_SHARD_ROWS, MANIFEST_FILE, type CatalogManifest } from '../schema.ts';
import { assembleCatalog, type AdmetPredictor } from './assemble.ts';
import { clearCheckpoints, hasChunk, prepareCheckpoints, saveChunk } from './checkpoint.ts';
import { readInputRecords, type InputRecord } from './input.ts';
import { createChunkPool, type ChunkPool } from './pool.ts';
import { createProgress } from './progress.ts';

export type { AdmetPredictor } from './assemble.ts';

export interface BuildCatalogOptions {
  input: string;
  outDir: string;
  id: string;
  name: string;
  vendor?: string;
  website?: string;
  contact?: string;
  release?: string;
  /** The data's licence and origin, kept in the manifest for `/license_information`. */
  license?: string;
  source?: string;
  smilesCol: string;
  idCol: string;
  priceCol?: string;
  delimiter?: string;
  header?: boolean;
  /** Worker threads (default: available cores). */
  threads?: number;
  /** Read at most this many data rows. */
  limit?: number;
  /** Input rows per chunk (the unit of parallelism and of checkpoints); default 2000. */
  chunkRows?: number;
  shardRows?: number;
  predictor?: AdmetPredictor;
  models?: Record<string, string>;
  /**
   * Predict the 22 ADMET columns (and the out-of-domain mask) with models/onnx inside the build
   * workers (default false here; the CLI and the bundled catalogs turn it on). Overrides `predictor`.
   */
  admet?: boolean;
  /** Progress on stderr (default true). */
  progress?: boolean;
  /** Expected input rows, for the progress bar. */
  expectedRows?: number;
  /** Aborting stops the build after the chunks in flight are saved; a rerun resumes. */
  signal?: AbortSignal;
  /** Called after each chunk is saved, with the number of chunks saved in this run. */
  onChunk?: (saved: number) => void;
}

export interface BuildCatalogResult {
  manifest: CatalogManifest;
  /** Chunks parsed in this run and chunks reused from checkpoints. */
  parsedChunks: number;
  reusedChunks: number;
  seconds: number;
}

/** The version of the committed ADMET models (models/onnx/manifest.json). */
export async function admetModelVersion(): Promise<string> {
  const m = JSON.parse(await readFile(join(DEFAULT_MODEL_DIR, 'manifest.json'), 'utf8')) as {
    version: string;
  };
  return m.version;
}

/**
 * Builds (or resumes building) a catalog into opts.outDir. Throws CatalogError('catalog_build') for
 * unusable input columns, and the signal's reason when aborted; checkpoints survive either.
 */
export async function buildCatalog(opts: BuildCatalogOptions): Promise<BuildCatalogResult> {
  const t0 = Date.now();
  const dir = resolve(opts.outDir);
  const chunkRows = opts.chunkRows ?? 2000;
  await mkdir(dir, { recursive: true });
  // The old manifest goes first: from here until the new one is renamed in, DIR is not a catalog.
  await rm(join(dir, MANIFEST_FILE), { force: true });
  const admetVersion = opts.admet ? await admetModelVersion() : undefined;
  // The ADMET flag and model version are part of the checkpoint key: predictions are saved with the chunks.
  const params = {
    input: resolve(opts.input),
    smilesCol: opts.smilesCol,
    idCol: opts.idCol,
    priceCol: opts.priceCol,
    delimiter: opts.delimiter,
    limit: opts.limit,
    chunkRows,
    ...(admetVersion ? { admet: admetVersion } : {}),
  };
  await prepareCheckpoints(dir, params);
  const threads = Math.max(1, opts.threads ?? availableParallelism());
  const progress = createProgress(
    `building ${opts.id}`,
    opts.expectedRows ?? opts.limit,
    process.stderr,
    opts.progress ?? true,
  );
  let pool: ChunkPool | undefined;
  const inflight = new Set<Promise<void>>();
  let chunks = 0;
  let rows = 0;
  let doneRows = 0;
  let rejected = 0;
  let parsed = 0;
  let reused = 0;
  const dispatch = async (chunk: number, records: InputRecord[]): Promise<void> => {
    opts.signal?.throwIfAborted();
    if (await hasChunk(dir, chunk)) {
      reused++;
      doneRows += records.length;
      return;
    }
    pool ??= await createChunkPool(threads, { admet: Boolean(admetVersion) });
    const p = pool.parse(chunk, records).then(async (r) => {
      await saveChunk(dir, r);
      parsed++;
      doneRows += r.inputRows;
      rejected += r.rejects.length;
      progress.update(doneRows, rejected);
      opts.onChunk?.(parsed);
    });
    const tracked = p.finally(() => inflight.delete(tracked));
    inflight.add(tracked);
    if (inflight.size >= threads * 2) await Promise.race(inflight);
  };
  try {
    let buf: InputRecord[] = [];
    for await (const rec of readInputRecords(opts.input, {
      smilesCol: opts.smilesCol,
      idCol: opts.idCol,
      priceCol: opts.priceCol,
      delimiter: opts.delimiter,
      header: opts.header,
      limit: opts.limit,
    })) {
      rows++;
      buf.push(rec);
      if (buf.length === chunkRows) {
        await dispatch(chunks++, buf);
        buf = [];
      }
    }
    if (buf.length) await dispatch(chunks++, buf);
    await Promise.all(inflight);
  } catch (err) {
    await Promise.allSettled(inflight);
    throw err;
  } finally {
    await pool?.close();
  }
  opts.signal?.throwIfAborted();
  const manifest = await assembleCatalog({
    dir,
    chunks,
    inputRows: rows,
    shardRows: opts.shardRows ?? DEFAULT_SHARD_ROWS,
    rdkitVersion: await rdkitVersion(),
    meta: {
      id: opts.id,
      name: opts.name,
      vendor: opts.vendor ?? '',
      website: opts.website ?? '',
      contact: opts.contact ?? '',
      release: opts.release ?? new Date().toISOString().slice(0, 10),
      ...(opts.license ? { license: opts.license } : {}),
      ...(opts.source ? { source: opts.source } : {}),
    },
    predictor: admetVersion ? undefined : opts.predictor,
    models: admetVersion ? Object.fromEntries(ADMET_NAMES.map((n) => [n, admetVersion])) : opts.models,
  });
  await clearCheckpoints(dir);
  const seconds = (Date.now() - t0) / 1000;
  progress.finish(
    `built ${opts.id}: ${manifest.counts.molecules} molecules, ${manifest.counts.rejected} rejected, ${manifest.shards.length} shards in ${seconds.toFixed(1)}s`,
  );
  return { manifest, parsedChunks: parsed, reusedChunks: reused, seconds };
}
