/**
 * The last phase of a build: de-duplicate the parsed chunks by canonical SMILES (first occurrence
 * wins), sort globally by popcount (ties by canonical SMILES), write the shards with checksums,
 * the rejects, and the manifest last (atomic rename), so a half-written catalog is never valid.
 */
import { readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DESCRIPTOR_NAMES } from '../../chem/descriptors.ts';
import { FP_BYTES, MORGAN_FP } from '../../chem/fingerprint.ts';
import {
  ADMET_NAMES,
  CATALOG_FORMAT,
  COLUMNS,
  MANIFEST_FILE,
  type CatalogManifest,
  type CatalogMeta,
  type ShardInfo,
} from '../schema.ts';
import { encodeShard, sha256Hex } from '../shard-writer.ts';
import { loadChunk } from './checkpoint.ts';
import type { RejectRow } from './parse-chunk.ts';

/** Fills the 22 ADMET columns for a batch of canonical SMILES (NaN = no prediction). */
export type AdmetPredictor = (smiles: string[]) => Promise<Record<string, Float32Array>>;

export type { CatalogMeta } from '../schema.ts';

export interface AssembleOptions {
  dir: string;
  chunks: number;
  inputRows: number;
  shardRows: number;
  rdkitVersion: string;
  meta: CatalogMeta;
  predictor?: AdmetPredictor;
  /** ADMET model versions written to the manifest when a predictor is given. */
  models?: Record<string, string>;
}

/** The 22 prediction columns and the out-of-domain masks of a shard's rows, from the chunk parts. */
function gatherAdmet(
  refs: [number, number][],
  parts: Float32Array[],
  oods: Uint32Array[],
): { admet: Record<string, Float32Array>; admetOod: Uint32Array } {
  const ne = ADMET_NAMES.length;
  const cols = ADMET_NAMES.map(() => new Float32Array(refs.length));
  const admetOod = new Uint32Array(refs.length);
  refs.forEach(([part, r], k) => {
    const src = parts[part];
    for (let e = 0; e < ne; e++) cols[e][k] = src[r * ne + e];
    admetOod[k] = oods[part][r];
  });
  return { admet: Object.fromEntries(ADMET_NAMES.map((name, e) => [name, cols[e]])), admetOod };
}

const clean = (s: string): string => s.replace(/[\t\r\n]+/g, ' ');

/** Writes shards, rejects.tsv and manifest.json into opts.dir from the saved chunks; returns the manifest. */
export async function assembleCatalog(opts: AssembleOptions): Promise<CatalogManifest> {
  const nd = DESCRIPTOR_NAMES.length;
  const firstId = new Map<string, string>();
  const rejects: RejectRow[] = [];
  const ids: string[] = [];
  const smiles: string[] = [];
  const scaffolds: string[] = [];
  const prices: number[] = [];
  const popcounts: number[] = [];
  const fpParts: Uint8Array[] = [];
  const descParts: Float64Array[] = [];
  // Predictions made by the build workers (checkpointed with their chunk); null when not predicted.
  const admetParts: (Float32Array | null)[] = [];
  const oodParts: (Uint32Array | null)[] = [];
  const rowRef: [number, number][] = []; // [part, row within part]
  let duplicates = 0;
  for (let c = 0; c < opts.chunks; c++) {
    const r = await loadChunk(opts.dir, c);
    if (!r) throw new Error(`chunk ${c} missing from the build checkpoints`);
    rejects.push(...r.rejects);
    const part = fpParts.length;
    fpParts.push(r.fps);
    descParts.push(r.descriptors);
    admetParts.push(r.admet ?? null);
    oodParts.push(r.ood ?? null);
    for (let k = 0; k < r.lines.length; k++) {
      const first = firstId.get(r.smiles[k]);
      if (first !== undefined) {
        duplicates++;
        rejects.push({ line: r.lines[k], input: r.inputs[k], reason: `duplicate of ${first}` });
        continue;
      }
      firstId.set(r.smiles[k], r.ids[k]);
      ids.push(r.ids[k]);
      smiles.push(r.smiles[k]);
      scaffolds.push(r.scaffolds[k]);
      prices.push(r.prices[k]);
      popcounts.push(r.popcounts[k]);
      rowRef.push([part, k]);
    }
  }
  const n = ids.length;
  const order = Array.from({ length: n }, (_, i) => i).sort(
    (a, b) => popcounts[a] - popcounts[b] || (smiles[a] < smiles[b] ? -1 : smiles[a] > smiles[b] ? 1 : 0),
  );
  // Remove shards of an earlier build of this directory before writing new ones.
  for (const f of await readdir(opts.dir))
    if (/^shard-\d+\.arrow(\.tmp)?$/.test(f)) await rm(join(opts.dir, f));
  const shards: ShardInfo[] = [];
  let modelsUsed = false;
  for (let start = 0; start < n; start += opts.shardRows) {
    const rows = order.slice(start, start + opts.shardRows);
    const m = rows.length;
    const fps = new Uint8Array(m * FP_BYTES);
    const descriptors = DESCRIPTOR_NAMES.map(() => new Float64Array(m));
    rows.forEach((i, k) => {
      const [part, r] = rowRef[i];
      fps.set(fpParts[part].subarray(r * FP_BYTES, (r + 1) * FP_BYTES), k * FP_BYTES);
      for (let j = 0; j < nd; j++) descriptors[j][k] = descParts[part][r * nd + j];
    });
    const shardSmiles = rows.map((i) => smiles[i]);
    let admet: Record<string, Float32Array> | null = null;
    let admetOod: Uint32Array | null = null;
    if (admetParts.length && admetParts.every((a) => a !== null)) {
      ({ admet, admetOod } = gatherAdmet(
        rows.map((i) => rowRef[i]),
        admetParts as Float32Array[],
        oodParts as Uint32Array[],
      ));
    } else if (opts.predictor) {
      admet = await opts.predictor(shardSmiles);
    }
    if (admet) modelsUsed = true;
    const bytes = encodeShard(
      {
        productIds: rows.map((i) => ids[i]),
        smiles: shardSmiles,
        fps,
        popcounts: Uint16Array.from(rows, (i) => popcounts[i]),
        descriptors,
        scaffolds: rows.map((i) => scaffolds[i]),
        prices: Float64Array.from(rows, (i) => prices[i]),
        admet,
        admetOod,
      },
      opts.rdkitVersion,
    );
    const file = `shard-${String(shards.length).padStart(5, '0')}.arrow`;
    await writeFile(join(opts.dir, `${file}.tmp`), bytes);
    await rename(join(opts.dir, `${file}.tmp`), join(opts.dir, file));
    shards.push({
      file,
      rows: m,
      popcount_min: popcounts[rows[0]],
      popcount_max: popcounts[rows[m - 1]],
      sha256: sha256Hex(bytes),
    });
  }
  rejects.sort((a, b) => a.line - b.line);
  await writeFile(
    join(opts.dir, 'rejects.tsv'),
    ['line\tinput\treason', ...rejects.map((r) => `${r.line}\t${clean(r.input)}\t${clean(r.reason)}`)].join(
      '\n',
    ) + '\n',
  );
  const manifest: CatalogManifest = {
    format: CATALOG_FORMAT,
    ...opts.meta,
    kind: 'enumerated',
    created_at: new Date().toISOString(),
    counts: { input_rows: opts.inputRows, molecules: n, rejected: rejects.length, duplicates },
    fingerprint: { ...MORGAN_FP, rdkit_version: opts.rdkitVersion },
    columns: [...COLUMNS],
    models: modelsUsed
      ? (opts.models ?? Object.fromEntries(ADMET_NAMES.map((a) => [a, 'unversioned'])))
      : null,
    shards,
    priced: prices.some((p) => !Number.isNaN(p)),
  };
  await writeFile(join(opts.dir, `${MANIFEST_FILE}.tmp`), JSON.stringify(manifest, null, 2) + '\n');
  await rename(join(opts.dir, `${MANIFEST_FILE}.tmp`), join(opts.dir, MANIFEST_FILE));
  return manifest;
}
