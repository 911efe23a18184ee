/**
 * The 3D stage of synthon-space similarity jobs with synthon_scorer shape or esp
 * (docs/synthon-spaces.md, "3D scorers"): the Morgan proposal's best `k × multiplier` assembled
 * products are kept as a shortlist in the object store, the chem3d worker embeds them in batches
 * (the workflow passes its conformers here), each is scored against the query's conformers by the
 * exact stage (engine/shape scoreShortlist), and the result is ranked by that score. Products the
 * chem3d worker cannot embed are skipped and counted in the result's metadata.
 */
import type { Logger } from '../platform/logger.ts';
import type { ObjectStore } from '../platform/object-store/index.ts';
import { moleculeFromBase64 } from '../engine/catalog/three-d-schema.ts';
import { decodeJobResult, encodeJobResult } from '../engine/export/index.ts';
import {
  rankBy3d,
  scoreEmbedded,
  type Score3d,
  type ShapeMetric,
  type ShapePool,
} from '../engine/shape/index.ts';
import type { SpaceHit } from '../engine/synthons/similarity.ts';
import type { EmbeddedWire } from '../workflows/contracts.ts';
import { beat } from './jobs.ts';
import { mergeSynthonParts, synthonJobKeys, synthonResult } from './synthon-jobs.ts';

export interface Synthon3dActivityDeps {
  log: Logger;
  objects: ObjectStore;
  /** Threads of the exact stage: the worker's one shape pool, shared with the 3D molsearch jobs. */
  shapePool: ShapePool;
}

export interface SynthonShortlistInput {
  jobName: string;
  keys: string[];
  /** Products to embed and score: the best by Morgan Tanimoto over the parts. */
  shortlist: number;
}
export interface SynthonShortlistResult {
  key: string;
  smiles: string[];
  timedOut: boolean;
}

export interface SynthonScore3dInput {
  query: EmbeddedWire;
  molecules: EmbeddedWire[];
  metric: ShapeMetric;
}
/** Per molecule: its exact-stage scores, or null when it has no conformers. */
export type SynthonScore3dResult = Score3d[];

export interface SynthonMerge3dInput {
  jobName: string;
  space: string;
  query: string;
  k: number;
  descriptors?: boolean;
  shortlistKey: string;
  /** Aligned with the shortlist. */
  scores: SynthonScore3dResult;
  metric: ShapeMetric;
  timedOut: boolean;
  /** Parts to delete once the result is written. */
  keys: string[];
}

export const synthon3dKeys = {
  shortlist: (job: string) => `jobs/${job}/synthon-shortlist.json`,
};

export function createSynthon3dActivities(deps: Synthon3dActivityDeps) {
  return {
    /** Merges the slices' Morgan hits into the shortlist to embed; idempotent. */
    async synthonShortlist(input: SynthonShortlistInput): Promise<SynthonShortlistResult> {
      const key = synthon3dKeys.shortlist(input.jobName);
      if ((await deps.objects.head(key)) !== undefined) {
        const s = JSON.parse(new TextDecoder().decode(await deps.objects.getBytes(key))) as {
          hits: SpaceHit[];
          timedOut: boolean;
        };
        return { key, smiles: s.hits.map((h) => h.smiles), timedOut: s.timedOut };
      }
      const { kept, timedOut } = await mergeSynthonParts(deps.objects, input.keys, input.shortlist);
      const body = JSON.stringify({ hits: kept, timedOut });
      await deps.objects.put(key, new TextEncoder().encode(body), 'application/json');
      return { key, smiles: kept.map((h) => h.smiles), timedOut };
    },

    /** One batch of embedded products scored against the query by the exact stage. */
    async synthonScore3d(input: SynthonScore3dInput): Promise<SynthonScore3dResult> {
      if (!input.query.ok) throw new Error('the query has no 3D model');
      const query = moleculeFromBase64(input.query);
      const molecules = input.molecules.map((m) => (m.ok ? moleculeFromBase64(m) : null));
      beat({ stage: 'scoring', molecules: molecules.filter(Boolean).length });
      return scoreEmbedded(deps.shapePool, query, molecules, input.metric, { lane: 'bulk' });
    },

    /** The shortlist ranked by the 3D score (similarity), unscored products skipped and counted. */
    async synthonMerge3d(input: SynthonMerge3dInput): Promise<{ key: string; rows: number }> {
      const store = deps.objects;
      const key = synthonJobKeys.result(input.jobName);
      if ((await store.head(key)) !== undefined)
        return { key, rows: decodeJobResult(await store.getBytes(key)).rows };
      const { hits } = JSON.parse(new TextDecoder().decode(await store.getBytes(input.shortlistKey))) as {
        hits: SpaceHit[];
      };
      const ranked = rankBy3d(hits, input.scores, input.metric, input.k);
      const scoredCount = input.scores.filter(Boolean).length;
      const kept = ranked.map(({ item, score }) => ({ ...item, similarity: score[input.metric] }));
      const r = await synthonResult(kept, input, {
        'molsearch.timed_out': String(input.timedOut),
        'molsearch.synthon_scorer': input.metric,
        'molsearch.shortlist': String(hits.length),
        'molsearch.skipped_3d': String(hits.length - scoredCount),
        // Morgan Tanimoto of each returned row (the proposal's score), in row order.
        'molsearch.morgan': JSON.stringify(ranked.map(({ item }) => item.similarity)),
      });
      await store.put(key, encodeJobResult(r), 'application/vnd.apache.arrow.file');
      await Promise.all([...input.keys, input.shortlistKey].map((k) => store.delete(k).catch(() => {})));
      deps.log.info(
        { job: input.jobName, rows: r.rows, skipped: hits.length - scoredCount },
        'synthon 3D job merged',
      );
      return { key, rows: r.rows };
    },
  };
}

export type Synthon3dActivities = ReturnType<typeof createSynthon3dActivities>;
