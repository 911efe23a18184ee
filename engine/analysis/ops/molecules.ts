/**
 * Parsing the molecule lists of the analysis operations: every row is embedded on its own, a bad
 * row gets its error and the others are answered (the API reports errors per row). The list-level
 * checks (empty, too many) throw AnalysisError naming the caller's parameter.
 */
import type { RDKitModule } from '../../chem/rdkit.ts';
import { embedMorgan, type EmbeddingKind } from '../embed/embeddings.ts';
import { AnalysisError, checkLimit } from '../errors.ts';
import { fingerprintSet, type FingerprintSet } from '../fingerprints.ts';

/** A parsed list: per input row its canonical SMILES or error; the valid rows packed in order. */
export interface ParsedList {
  canonical: (string | null)[];
  errors: (string | null)[];
  /** Input indices of the valid rows, in order (row r of `fps`/`vectors` is input valid[r]). */
  valid: number[];
  fps: FingerprintSet;
  vectors: Float32Array[];
}

/** Parses a list; throws `empty_input` / `too_large` on `field` for an empty or oversized list. */
export function parseList(
  rd: RDKitModule,
  smiles: readonly string[],
  field: string,
  max: number,
  kind: EmbeddingKind = 'bits',
): ParsedList {
  if (smiles.length === 0) throw new AnalysisError('empty_input', field, 'needs at least one SMILES');
  checkLimit(field, smiles.length, max, 'molecules');
  const out: ParsedList = { canonical: [], errors: [], valid: [], fps: fingerprintSet([]), vectors: [] };
  const fps: Uint8Array[] = [];
  smiles.forEach((s, i) => {
    const e = embedMorgan(rd, s, kind);
    if ('error' in e) {
      out.canonical.push(null);
      out.errors.push(e.error);
      return;
    }
    out.canonical.push(e.smiles);
    out.errors.push(null);
    out.valid.push(i);
    fps.push(e.fp);
    out.vectors.push(e.vector);
  });
  out.fps = fingerprintSet(fps, field);
  return out;
}

/** Parses one molecule; throws `invalid_parameter` on `field` when it does not parse. */
export function parseOne(rd: RDKitModule, smiles: string, field: string): ParsedList {
  const list = parseList(rd, [smiles], field, 1);
  if (list.valid.length === 0)
    throw new AnalysisError(
      'invalid_parameter',
      field,
      `could not parse SMILES ${JSON.stringify(smiles.slice(0, 200))}: ${list.errors[0]}`,
    );
  return list;
}

/**
 * The exact f64 Tanimoto (RDKit's c / (a + b - c)) behind a kernel's f32 score of fingerprints
 * with popcounts a and b: the f32 value identifies the common-bit count c exactly.
 */
export function exactTanimoto(score: number, a: number, b: number): number {
  if (a + b === 0) return 0;
  const c = Math.round((score * (a + b)) / (1 + score));
  // c / (a + b - c) in doubles, as RDKit divides: 1 - distance can differ in the last bit.
  return c / (a + b - c);
}
