/**
 * `space build`: synthon text file → space directory (format.ts). Resumable: each reaction's slot
 * files are written, then a `.done` marker naming the input's hash; a rerun on the same input skips
 * reactions already done. Rejected lines (reader, reaction checks, RDKit) go to `rejects.tsv` with
 * their line numbers and reasons. The manifest is written last, so a directory with a manifest is
 * complete.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { FP_BYTES, MORGAN_FP } from '../chem/fingerprint.ts';
import { getRDKit } from '../chem/rdkit.ts';
import { createProgress } from '../catalog/builder/progress.ts';
import { parseSynthonText, type RejectedLine } from './parse.ts';
import { groupReactions, type ReactionDraft } from './reactions.ts';
import { synthonChemistry, type SynthonChem } from './synthon-chem.ts';
import { SCREEN_BYTES } from './sss-screen.ts';
import { createBuildWork, needsRingCore } from './build-work.ts';
import { ringBounds } from './ring-bound.ts';
import {
  decodeSlot,
  encodeSlot,
  SPACE_FORMAT,
  SPACE_FORMAT_VERSION,
  writeAtomic,
  type ReactionInfo,
  type SlotColumns,
  type SpaceManifest,
} from './format.ts';

export interface BuildSpaceOptions {
  /** Synthon text file (.txt, .csv, .tsv; gzipped when it ends in .gz). */
  input: string;
  out: string;
  id: string;
  name?: string;
  /** Attribution text kept in the manifest. */
  source?: string;
  progress?: boolean;
}

export interface BuildSpaceResult {
  manifest: SpaceManifest;
  rejects: RejectedLine[];
  /** Reactions taken from an earlier interrupted run. */
  resumed: number;
}

async function readInput(path: string): Promise<{ text: string; hash: string }> {
  const raw = await readFile(path);
  const bytes = path.endsWith('.gz') ? gunzipSync(raw) : raw;
  return { text: bytes.toString('utf8'), hash: createHash('sha256').update(bytes).digest('hex') };
}

/** Builds (or finishes building) a space directory. */
export async function buildSpace(opts: BuildSpaceOptions): Promise<BuildSpaceResult> {
  const { text, hash } = await readInput(opts.input);
  const parsed = parseSynthonText(text);
  const grouped = groupReactions(parsed.lines);
  const rejects = [...parsed.rejects, ...grouped.rejects];
  await mkdir(join(opts.out, 'reactions'), { recursive: true });
  const rd = await getRDKit();
  const total = grouped.reactions.reduce((n, r) => n + r.slots.flat().length, 0);
  const progress = createProgress(`space ${opts.id}`, total, process.stderr, opts.progress ?? false);
  let done = 0;
  const work = createBuildWork(grouped.reactions);
  let resumed = 0;
  const reactions: ReactionInfo[] = [];
  for (let ri = 0; ri < grouped.reactions.length; ri++) {
    const draft = grouped.reactions[ri];
    const marker = join(opts.out, 'reactions', `r${ri}.done`);
    const prior = await readMarker(marker);
    let info: ReactionInfo | undefined;
    let pairCount = 0;
    // A reaction built by an older format version lacks columns: it is built again.
    if (
      prior?.inputHash === hash &&
      prior.info.id === draft.id &&
      prior.formatVersion === SPACE_FORMAT_VERSION
    ) {
      info = prior.info;
      rejects.push(...prior.rejects);
      resumed++;
    } else {
      // Within a reaction, progress moves with its synthons parsed and its ring-core pairs done
      // (the AutoGrow4 Fischer indole reaction's 113,565 pairs take over a minute alone).
      const rows = draft.slots.flat().length;
      const tick = (parsed: number, pairShare?: number, pairs?: number): void =>
        progress.update(done + Math.min(rows, parsed), rejects.length, work.at(ri, parsed, pairShare, pairs));
      const built = await buildReaction(rd, draft, ri, opts.out, tick);
      pairCount = built.pairs;
      rejects.push(...built.rejects);
      info = built.info;
      await writeAtomic(
        marker,
        JSON.stringify({
          inputHash: hash,
          formatVersion: SPACE_FORMAT_VERSION,
          info,
          rejects: built.rejects,
        }),
      );
    }
    done += draft.slots.flat().length;
    progress.update(done, rejects.length, work.finish(ri, pairCount));
    if (info.slots.every((s) => s.synthons > 0)) reactions.push(info);
    else
      rejects.push({
        line: draft.slots[0][0].line,
        reason: `reaction ${draft.id}: a synthon set has no valid synthon`,
        text: '',
      });
  }
  rejects.sort((a, b) => a.line - b.line);
  const counts = {
    reactions: reactions.length,
    synthons: reactions.reduce((n, r) => n + r.slots.reduce((m, s) => m + s.synthons, 0), 0),
    products: reactions.reduce((n, r) => n + r.products, 0),
    rejected: rejects.length,
  };
  const manifest: SpaceManifest = {
    format: SPACE_FORMAT,
    formatVersion: SPACE_FORMAT_VERSION,
    id: opts.id,
    name: opts.name ?? opts.id,
    source: opts.source ?? basename(opts.input),
    fingerprint: MORGAN_FP,
    rdkitVersion: rd.version(),
    createdAt: new Date().toISOString(),
    counts,
    reactions,
  };
  const tsv = rejects.map((r) => `${r.line}\t${r.reason}\t${r.text.replace(/[\t\n]/g, ' ')}`).join('\n');
  await writeFile(join(opts.out, 'rejects.tsv'), `line\treason\ttext\n${tsv}${tsv ? '\n' : ''}`);
  await writeAtomic(join(opts.out, 'manifest.json'), JSON.stringify(manifest, null, 2));
  const note = resumed ? ` (${resumed} reactions resumed)` : '';
  progress.finish(
    `space ${opts.id}: ${counts.reactions} reactions, ${counts.synthons} synthons, ` +
      `${counts.products} products, ${counts.rejected} rejected${note}`,
  );
  return { manifest, rejects, resumed };
}

async function readMarker(
  path: string,
): Promise<
  { inputHash: string; formatVersion?: number; info: ReactionInfo; rejects: RejectedLine[] } | undefined
> {
  if (!existsSync(path)) return undefined;
  try {
    return JSON.parse(await readFile(path, 'utf8'));
  } catch {
    return undefined;
  }
}

/**
 * A building block gives the same synthon in every reaction of its functional group (the
 * AutoGrow4 space repeats ~40% of its synthon SMILES), so the chemistry is computed once per
 * SMILES; the cache is cleared when full to bound the build's memory.
 */
const chemCache = new Map<string, SynthonChem | string>();
const CHEM_CACHE_MAX = 100_000;

function cachedChemistry(
  rd: Awaited<ReturnType<typeof getRDKit>>,
  smiles: string,
  ringForming: boolean,
  withCore: boolean,
): SynthonChem | string {
  const key = `${ringForming ? 'r' : 'a'}${withCore ? 'c' : ''}${smiles}`;
  let chem = chemCache.get(key);
  if (chem === undefined) {
    chem = synthonChemistry(rd, smiles, ringForming, withCore);
    if (chemCache.size >= CHEM_CACHE_MAX) chemCache.clear();
    chemCache.set(key, chem);
  }
  return chem;
}

async function buildReaction(
  rd: Awaited<ReturnType<typeof getRDKit>>,
  draft: ReactionDraft,
  ri: number,
  out: string,
  /** Rows parsed so far; then, in the ring-core step, its share done and its pairs of cores. */
  tick: (parsed: number, pairShare?: number, pairs?: number) => void = () => {},
): Promise<{ info: ReactionInfo; rejects: RejectedLine[]; pairs: number }> {
  const rejects: RejectedLine[] = [];
  const slots: ReactionInfo['slots'] = [];
  // Ring cores (ring-core.ts) wherever the TypeScript graph zip cannot score a product.
  const withCore = needsRingCore(draft);
  const built: SlotColumns[] = [];
  let parsed = 0;
  for (let s = 0; s < draft.slots.length; s++) {
    const want = draft.labels[s].join(',');
    const rows: Array<{
      id: string;
      smiles: string;
      line: number;
      chem: SynthonChem;
    }> = [];
    for (const l of draft.slots[s]) {
      const chem = cachedChemistry(rd, l.smiles, draft.ringForming, withCore);
      if (++parsed % 1024 === 0) tick(parsed);
      if (typeof chem === 'string') rejects.push({ line: l.line, reason: chem, text: l.smiles });
      else if (chem.labels.join(',') !== want)
        rejects.push({
          line: l.line,
          reason: `connectors [${chem.labels.join(',')}] differ from the set's [${want}]`,
          text: l.smiles,
        });
      else rows.push({ id: l.synthonId, smiles: l.smiles, line: l.line, chem });
    }
    const n = rows.length;
    const cols: SlotColumns = {
      synthonIds: rows.map((r) => r.id),
      smiles: rows.map((r) => r.smiles),
      fps: new Uint8Array(n * FP_BYTES),
      guaranteed: new Uint8Array(n * FP_BYTES),
      unstableEnvs: Uint16Array.from(rows, (r) => r.chem.unstableEnvs),
      heavyAtoms: Uint16Array.from(rows, (r) => r.chem.heavyAtoms),
      lines: Uint32Array.from(rows, (r) => r.line),
      joinEnv: rows.map((r) => r.chem.joinEnv),
      screen: new Uint8Array(n * SCREEN_BYTES),
    };
    const offsets = new Int32Array(n + 1);
    rows.forEach((r, i) => (offsets[i + 1] = offsets[i] + r.chem.ringCore.length));
    cols.ringCores = { data: new Uint8Array(offsets[n]), offsets };
    rows.forEach((r, i) => {
      cols.ringCores!.data.set(r.chem.ringCore, offsets[i]);
      cols.fps.set(r.chem.fp, i * FP_BYTES);
      cols.guaranteed.set(r.chem.guaranteed, i * FP_BYTES);
      cols.screen!.set(r.chem.screen, i * SCREEN_BYTES);
    });
    built.push(cols);
  }
  // Weak-bound reactions get the ring-core bound in their guaranteed and unstable columns
  // (ring-bound.ts: same meaning, tighter values).
  let pairs = 0;
  const tighter = withCore
    ? ringBounds(rd, draft.ringForming, built, (f, n) => tick(parsed, f, (pairs = n)))
    : undefined;
  for (let s = 0; s < built.length; s++) {
    const cols = built[s];
    if (tighter) {
      cols.guaranteed = tighter.bounds[s].guaranteed;
      cols.unstableEnvs = tighter.bounds[s].unstable;
    }
    const file = `reactions/r${ri}-s${s}.arrow`;
    await writeAtomic(join(out, file), encodeSlot(cols));
    slots.push({
      slot: s,
      rawSlot: draft.rawSlots[s],
      synthons: cols.synthonIds.length,
      connectors: draft.labels[s],
      file,
    });
  }
  const products = slots.reduce((p, s) => p * s.synthons, 1);
  const info: ReactionInfo = { id: draft.id, ringForming: draft.ringForming, slots, products };
  if (tighter) {
    info.ringBound = true;
    info.ringPairs = `reactions/r${ri}-pairs.bin`;
    await writeAtomic(join(out, info.ringPairs), tighter.pairs);
  }
  return { info, rejects, pairs: tighter ? pairs : 0 };
}

/** Loads every slot of a built space (used by searches and tests). */
export async function loadSlots(dir: string, info: ReactionInfo): Promise<SlotColumns[]> {
  return Promise.all(info.slots.map(async (s) => decodeSlot(await readFile(join(dir, s.file)))));
}
