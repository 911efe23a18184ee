/**
 * Parses one chunk of input records into catalog rows. Pure apart from RDKit; runs inside the
 * build's worker threads (and in tests directly).
 */
import type { RDKitModule } from '../../chem/rdkit.ts';
import { parseMolecule } from '../../chem/molecule.ts';
import { DESCRIPTOR_NAMES } from '../../chem/descriptors.ts';
import { FP_BYTES } from '../../chem/fingerprint.ts';
import type { InputRecord } from './input.ts';

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
}

/** Parses every record; unparsable ones and ones without an id become rejects with a reason. */
export function parseChunk(rd: RDKitModule, chunk: number, records: readonly InputRecord[]): ChunkResult {
  const nd = DESCRIPTOR_NAMES.length;
  const fps = new Uint8Array(records.length * FP_BYTES);
  const descriptors = new Float64Array(records.length * nd);
  const r: ChunkResult = { chunk, inputRows: records.length, lines: [], inputs: [], ids: [], smiles: [], scaffolds: [], prices: [], popcounts: [], fps, descriptors, rejects: [] };
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
  return r;
}
