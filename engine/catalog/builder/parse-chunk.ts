/**
 * Parses one chunk of input records into catalog rows. Pure apart from RDKit; runs inside the
 * build's worker threads (and in tests directly).
 */
import type { RDKitModule } from '../../chem/rdkit.ts';
import { parseMolecule } from '../../chem/molecule.ts';
import { DESCRIPTOR_NAMES } from '../../chem/descriptors.ts';
import { FP_BYTES } from '../../chem/fingerprint.ts';
import type { InputRecord } from './input.ts';
import { ADMET_FEATURE_LENGTH, writeAdmetFeatures } from '../../admet/features.ts';

export interface RejectRow {
  line: number;
  input: string;
  reason: string;
}

export interface ChunkResult {
  chunk: number;
  /** Input rows in the chunk (parsed or rejected). */
  inputRows: number;
  lines: number[];
  /** Raw input lines of the parsed rows (for duplicate rejects). */
  inputs: string[];
  ids: string[];
  smiles: string[];
  scaffolds: string[];
  prices: number[];
  popcounts: number[];
  /** ok-rows * 256 bytes. */
  fps: Uint8Array;
  /** ok-rows * 11 descriptors, row-major. */
  descriptors: Float64Array;
  rejects: RejectRow[];
  /** ADMET model features of the parsed rows (ok-rows * 2091), only when asked for; never saved. */
  features?: Float32Array;
  /** ok-rows * 22 predictions, row-major in ADMET_NAMES order (NaN = none); present when predicted. */
  admet?: Float32Array;
  /** Out-of-domain bitmask per parsed row (bit i = ADMET_NAMES[i]); present when predicted. */
  ood?: Uint32Array;
}

/**
 * Parses every record; unparsable ones and ones without an id become rejects with a reason. With
 * `opts.features` it also writes the ADMET model features of each parsed row (same parse, same
 * fingerprint, the same graph descriptors).
 */
export function parseChunk(
  rd: RDKitModule,
  chunk: number,
  records: readonly InputRecord[],
  opts?: { features?: boolean },
): ChunkResult {
  const features = opts?.features ? new Float32Array(records.length * ADMET_FEATURE_LENGTH) : undefined;
  const nd = DESCRIPTOR_NAMES.length;
  const fps = new Uint8Array(records.length * FP_BYTES);
  const descriptors = new Float64Array(records.length * nd);
  const r: ChunkResult = {
    chunk,
    inputRows: records.length,
    lines: [],
    inputs: [],
    ids: [],
    smiles: [],
    scaffolds: [],
    prices: [],
    popcounts: [],
    fps,
    descriptors,
    rejects: [],
  };
  for (const rec of records) {
    if (rec.id === '') {
      r.rejects.push({ line: rec.line, input: rec.raw, reason: 'missing id' });
      continue;
    }
    const m = parseMolecule(rd, rec.smiles);
    if ('error' in m) {
      r.rejects.push({ line: rec.line, input: rec.raw, reason: m.error });
      continue;
    }
    const k = r.lines.length;
    fps.set(m.fp, k * FP_BYTES);
    if (features) writeAdmetFeatures(m.fp, m.graph, features, k);
    DESCRIPTOR_NAMES.forEach((name, j) => (descriptors[k * nd + j] = m.descriptors[name]));
    r.lines.push(rec.line);
    r.inputs.push(rec.raw);
    r.ids.push(rec.id);
    r.smiles.push(m.canonicalSmiles);
    r.scaffolds.push(m.scaffold);
    r.prices.push(rec.price);
    r.popcounts.push(m.popcount);
  }
  r.fps = fps.slice(0, r.lines.length * FP_BYTES);
  r.descriptors = descriptors.slice(0, r.lines.length * nd);
  if (features) r.features = features.subarray(0, r.lines.length * ADMET_FEATURE_LENGTH);
  return r;
}
