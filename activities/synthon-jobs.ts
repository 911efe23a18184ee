/**
 * Activities of synthon-space jobs (/submit_synthongpt_job): prepare (check the query and the
 * space, split its reactions into slices of similar product counts), scan one slice on an engine
 * thread into a small JSON part in the object store, and merge the parts into result.arrow with
 * the synthon columns. Input errors are non-retryable `invalid_input` failures; anything else is
 * thrown plainly so Temporal retries it (a retried scan reuses a part already written).
 */
import { join } from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import type { Logger } from '../platform/logger.ts';
import type { ObjectStore } from '../platform/object-store/index.ts';
import type { Jobs } from '../store/jobs.ts';
import { getRDKit, parseMolecule } from '../engine/chem/index.ts';
import { DESCRIPTOR_NAMES } from '../engine/chem/descriptors.ts';
import { allocJobResult, decodeJobResult, encodeJobResult, PROPERTY_KEYS } from '../engine/export/index.ts';
import { readManifest, type SpaceManifest } from '../engine/synthons/format.ts';
import {
  compareHits,
  queryMol,
  type SynthonJobSlice,
  type SynthonJobSliceResult,
} from '../engine/synthons/job-search.ts';
import { createSynthonJobPool, type SynthonJobPool } from '../engine/synthons/job-pool.ts';
import { LARGE_SPACE_PRODUCTS } from '../engine/synthons/space-pool.ts';
import type { SpaceHit } from '../engine/synthons/similarity.ts';
import { INVALID_INPUT_FAILURE } from '../workflows/contracts.ts';
import { beat, cancellationSignal, shutdownFailure } from './jobs.ts';
import { createSliceProgressWriter } from './synthon-progress.ts';

export interface SynthonActivityDeps {
  log: Logger;
  objects: ObjectStore;
  /** Where the running slices' progress is recorded (absent: only heartbeats carry it). */
  jobs?: Pick<Jobs, 'sliceProgress'>;
  /** Least time between two progress writes of one job by this worker (default 5 s). */
  progressIntervalMs?: number;
  /** Directory of the built spaces (DATA_DIR/spaces), one directory per space id; none: no spaces. */
  spaceDir?: string;
  /** Slices run at once on this worker per lane (threads): large spaces' and small ones'. */
  threads?: number;
  /** Spaces with at least this many products take the large lane (tests lower it). */
  largeProducts?: number;
}

/** Most slices a job is split into: enough to spread over a fleet, few enough for history. */
export const MAX_SYNTHON_SLICES = 16;

export interface SynthonPrepareInput {
  jobName: string;
  space: string;
  slice: Omit<SynthonJobSlice, 'reactions'>;
}
export interface SynthonPrepareResult {
  /** Reaction ids per slice. */
  slices: string[][];
  products: number;
}

export interface SynthonScanInput {
  jobName: string;
  space: string;
  index: number;
  slice: SynthonJobSlice;
  /** The job's slice count (for its recorded progress); absent in histories from before it. */
  slices?: number;
}
export interface SynthonScanResult {
  key: string;
  hits: number;
  examined: number;
  timedOut: boolean;
  /** Structure modes: more hits exist than the slice ranked (its hit cap, job-search.ts). */
  hitCapReached?: boolean;
  /** Similarity: the k-th best score of the part (distinct molecules), when it holds k hits: a floor for later slices. */
  kth?: number;
}

/** What a scan answers for its part (the part's hits are best first). */
function scanResult(key: string, part: SynthonPart, slice: SynthonJobSlice): SynthonScanResult {
  const kth =
    slice.mode === 'similarity' && part.hits.length >= slice.k && slice.k > 0
      ? part.hits[slice.k - 1].similarity
      : undefined;
  return {
    key,
    hits: part.hits.length,
    examined: part.examined,
    timedOut: part.timedOut,
    ...(part.hitCapReached ? { hitCapReached: true } : {}),
    ...(kth !== undefined ? { kth } : {}),
  };
}

export interface SynthonMergeInput {
  jobName: string;
  space: string;
  keys: string[];
  k: number;
  query: string;
  /** Compute the 11 RDKit descriptors of the kept products (ADMET predictions stay null). */
  descriptors?: boolean;
}

/** A part: one slice's result as the slice wrote it (hits best first). */
type SynthonPart = SynthonJobSliceResult;

export const synthonJobKeys = {
  part: (job: string, index: number) => `jobs/${job}/parts/synthon-${index}.json`,
  result: (job: string) => `jobs/${job}/result.arrow`,
};

const invalid = (msg: string) =>
  ApplicationFailure.create({ message: msg, type: INVALID_INPUT_FAILURE, nonRetryable: true });

/** Splits reactions into at most `max` slices of similar product counts (largest first, greedy). */
export function sliceReactions(manifest: SpaceManifest, max = MAX_SYNTHON_SLICES): string[][] {
  const rs = [...manifest.reactions].sort((a, b) => b.products - a.products || a.id.localeCompare(b.id));
  const n = Math.max(1, Math.min(max, rs.length));
  const slices: { ids: string[]; products: number }[] = Array.from({ length: n }, () => ({
    ids: [],
    products: 0,
  }));
  for (const r of rs) {
    let best = slices[0];
    for (const s of slices) if (s.products < best.products) best = s;
    best.ids.push(r.id);
    best.products += r.products;
  }
  return slices.filter((s) => s.ids.length).map((s) => s.ids);
}

/** The 11 descriptor columns of a result from its SMILES; yields now and then so heartbeats go out. */
async function fillDescriptors(r: ReturnType<typeof allocJobResult>): Promise<void> {
  const rd = await getRDKit();
  const cols = DESCRIPTOR_NAMES.map((n) => r.props[PROPERTY_KEYS.indexOf(n)]);
  for (let i = 0; i < r.rows; i++) {
    const p = parseMolecule(rd, r.smiles[i]);
    if (!('error' in p)) DESCRIPTOR_NAMES.forEach((n, j) => (cols[j][i] = p.descriptors[n]));
    if (i % 200 === 199) {
      beat({ stage: 'descriptors', row: i });
      await new Promise((ok) => setImmediate(ok));
    }
  }
}

/** The best `k` hits over the parts, unique by product id, best first. */
export async function mergeSynthonParts(
  store: ObjectStore,
  keys: string[],
  k: number,
): Promise<{ kept: SpaceHit[]; timedOut: boolean }> {
  const all: SpaceHit[] = [];
  let timedOut = false;
  for (const key of keys) {
    const part = JSON.parse(new TextDecoder().decode(await store.getBytes(key))) as SynthonPart;
    all.push(...part.hits);
    timedOut ||= part.timedOut;
  }
  all.sort(compareHits);
  // One row per molecule: a product made by two routes (other reactions or slices) is kept once,
  // at its best score (then smallest product id), as the synchronous searches do.
  const seen = new Set<string>();
  const kept = all.filter((h) => !seen.has(h.smiles) && !!seen.add(h.smiles)).slice(0, k);
  return { kept, timedOut };
}

/** A job result of `hits` in their order (similarity = each hit's score) with the synthon columns. */
export async function synthonResult(
  hits: SpaceHit[],
  input: Pick<SynthonMergeInput, 'jobName' | 'space' | 'query' | 'k' | 'descriptors'>,
  metadata: Record<string, string>,
): Promise<ReturnType<typeof allocJobResult>> {
  const r = allocJobResult(hits.length);
  r.synthon = { reactionId: [], synthons: [] };
  hits.forEach((h, i) => {
    r.smiles[i] = h.smiles;
    r.id[i] = h.productId;
    r.dbId[i] = h.productId;
    r.database[i] = input.space;
    r.similarity[i] = h.similarity;
    r.synthon!.reactionId.push(h.reactionId);
    r.synthon!.synthons.push(
      JSON.stringify(h.synthons.map((s) => ({ slot: s.slot, synthon_id: s.synthonId, smiles: s.smiles }))),
    );
  });
  if (input.descriptors) await fillDescriptors(r);
  r.metadata = {
    'molsearch.job': input.jobName,
    'molsearch.query': input.query,
    'molsearch.k': String(input.k),
    ...metadata,
  };
  return r;
}

export function createSynthonJobActivities(deps: SynthonActivityDeps) {
  let pool: SynthonJobPool | undefined;
  const slicePool = () =>
    (pool ??= createSynthonJobPool({ spaceDir: deps.spaceDir ?? '.', threads: deps.threads }));
  const progress = deps.jobs && createSliceProgressWriter(deps.jobs, deps.log, deps.progressIntervalMs);
  // Products of each space, read from its manifest once: which engine lane its slices take.
  const products = new Map<string, Promise<number>>();
  const productsOf = (space: string): Promise<number> => {
    let p = products.get(space);
    if (!p) {
      p = readManifest(join(deps.spaceDir ?? '.', space)).then((m) => m.counts.products);
      products.set(space, p);
      p.catch(() => products.delete(space));
    }
    return p.catch(() => 0);
  };

  return {
    /** Checks the query, the prefilter and the space (all non-retryable) and slices the reactions. */
    async synthonPrepare(input: SynthonPrepareInput): Promise<SynthonPrepareResult> {
      if (!deps.spaceDir || !/^[\w.-]+$/.test(input.space))
        throw invalid(`unknown synthon space ${JSON.stringify(input.space)}`);
      let manifest: SpaceManifest;
      try {
        manifest = await readManifest(join(deps.spaceDir, input.space));
      } catch (err) {
        throw invalid(`unknown synthon space ${JSON.stringify(input.space)}: ${(err as Error).message}`);
      }
      const rd = await getRDKit();
      const q = queryMol(rd, input.slice.query, input.slice.mode === 'substructure');
      if (!q) throw invalid(`invalid search_input ${JSON.stringify(input.slice.query.slice(0, 200))}`);
      q.delete();
      if (input.slice.prefilter?.smarts.trim()) {
        const p = queryMol(rd, input.slice.prefilter.smarts, true);
        if (!p) throw invalid('invalid smarts_prefilter_pattern_smarts');
        p.delete();
      }
      return { slices: sliceReactions(manifest), products: manifest.counts.products };
    },

    /** Runs one slice on an engine thread and writes its hits as a part; reuses an earlier attempt's part. */
    async synthonScan(input: SynthonScanInput): Promise<SynthonScanResult> {
      const key = synthonJobKeys.part(input.jobName, input.index);
      const store = deps.objects;
      const slices = input.slices;
      const done = async (r: SynthonScanResult) => {
        if (slices) await progress?.finish(input.jobName, slices, input.index);
        return r;
      };
      beat({ stage: 'start' });
      if ((await store.head(key)) !== undefined) {
        const part = JSON.parse(new TextDecoder().decode(await store.getBytes(key))) as SynthonPart;
        return done(scanResult(key, part, input.slice));
      }
      // Cancelled (the job, or this worker shutting down): stop the slice, not finish it.
      const lane = (await productsOf(input.space)) >= (deps.largeProducts ?? LARGE_SPACE_PRODUCTS);
      const run = slicePool().run(input.space, input.slice, cancellationSignal(), lane ? 'large' : 'small');
      // How far the slice got: what the engine reports (structure modes) or, at least, the share
      // of its time budget spent since its thread took it (it ends by then, so the rest of the
      // budget bounds the time left). 0.99 at most: done is when the part is written.
      let start: number | undefined;
      const budget = input.slice.timeoutMs;
      const fraction = () => {
        const p = run.progress();
        if (p.started) start ??= Date.now();
        const spent = start !== undefined && budget ? (Date.now() - start) / budget : 0;
        return Math.min(0.99, Math.max(p.fraction, spent));
      };
      // The slice runs on a thread; this loop keeps the activity's heartbeat going meanwhile.
      const timer = setInterval(() => {
        const f = fraction();
        beat({ stage: 'scanning', fraction: f });
        if (slices) progress?.report(input.jobName, slices, input.index, f);
      }, 2000);
      let part: SynthonPart;
      try {
        part = await run;
      } catch (err) {
        const msg = (err as Error).message ?? String(err);
        if (/^(search_input|smarts_prefilter_pattern_smarts):/.test(msg)) throw invalid(msg);
        throw shutdownFailure() ?? err;
      } finally {
        clearInterval(timer);
      }
      await store.put(key, new TextEncoder().encode(JSON.stringify(part)), 'application/json');
      beat({ stage: 'written', hits: part.hits.length });
      return done(scanResult(key, part, input.slice));
    },

    /** Best `k` hits over the parts (one per molecule) → result.arrow with the synthon columns. */
    async synthonMerge(input: SynthonMergeInput): Promise<{ key: string; rows: number }> {
      const store = deps.objects;
      const key = synthonJobKeys.result(input.jobName);
      if ((await store.head(key)) !== undefined)
        return { key, rows: decodeJobResult(await store.getBytes(key)).rows };
      const { kept, timedOut } = await mergeSynthonParts(store, input.keys, input.k);
      const r = await synthonResult(kept, input, { 'molsearch.timed_out': String(timedOut) });
      await store.put(key, encodeJobResult(r), 'application/vnd.apache.arrow.file');
      await Promise.all(input.keys.map((k) => store.delete(k).catch(() => {})));
      deps.log.info({ job: input.jobName, rows: r.rows, timedOut }, 'synthon job merged');
      return { key, rows: r.rows };
    },
  };
}

export type SynthonJobActivities = ReturnType<typeof createSynthonJobActivities>;
