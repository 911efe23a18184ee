/**
 * ADMET model inputs, computed exactly as the offline training computes them (models/features.py).
 * Both sides read the layout from models/features.json: the Morgan radius-2 2048-bit fingerprint
 * (one 0/1 float per bit), the 14 descriptors in the listed order, then the Wildman-Crippen
 * atom-type counts, as float32. All of it comes from the molecule graph in TypeScript
 * (engine/chem/graph-descriptors.ts), not from MinimalLib's costly get_descriptors().
 * test/engine/admet/features.test.ts proves equality with Python on a sample.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { CRIPPEN_LABELS } from '../chem/crippen.ts';
import { DESCRIPTOR_NAMES, type DescriptorName } from '../chem/descriptors.ts';
import { MORGAN_DETAILS, MORGAN_FP } from '../chem/fingerprint.ts';
import {
  EXTRA_DESCRIPTOR_NAMES,
  describeMolecule,
  type ExtraDescriptorName,
  type GraphDescriptors,
} from '../chem/graph-descriptors.ts';
import type { RDKitModule, RDKitMol } from '../chem/rdkit.ts';

interface MorganBlock {
  kind: 'morgan_bits';
  radius: number;
  n_bits: number;
}
interface DescriptorBlock {
  kind: 'descriptors';
  names: string[];
}
interface CrippenBlock {
  kind: 'crippen_type_counts';
  labels: string[];
}
/** The parsed models/features.json. */
export interface AdmetFeatureSpec {
  version: string;
  rdkit_version: string;
  blocks: [MorganBlock, DescriptorBlock, CrippenBlock];
  length: number;
}

const SPEC_URL = new URL('../../models/features.json', import.meta.url);
const SPEC_BYTES = readFileSync(SPEC_URL);

/** The feature layout shared with the training pipeline. */
export const ADMET_FEATURE_SPEC: AdmetFeatureSpec = JSON.parse(SPEC_BYTES.toString('utf8'));
/** sha256 of models/features.json; each model manifest records the hash it was trained with. */
export const ADMET_FEATURE_SPEC_SHA256 = createHash('sha256').update(SPEC_BYTES).digest('hex');

const [MORGAN_BLOCK, DESCRIPTOR_BLOCK, CRIPPEN_BLOCK] = ADMET_FEATURE_SPEC.blocks;
/** Number of fingerprint features (leading block). */
export const ADMET_N_BITS = MORGAN_BLOCK.n_bits;
/** Descriptor names, in feature order after the fingerprint block. */
export const ADMET_DESCRIPTOR_NAMES: readonly string[] = DESCRIPTOR_BLOCK.names;
/** Offset of the Crippen type counts in a feature row. */
export const ADMET_CRIPPEN_OFFSET = ADMET_N_BITS + ADMET_DESCRIPTOR_NAMES.length;
/** Floats per molecule. */
export const ADMET_FEATURE_LENGTH = ADMET_FEATURE_SPEC.length;

const KNOWN_DESCRIPTORS: readonly string[] = [...DESCRIPTOR_NAMES, ...EXTRA_DESCRIPTOR_NAMES];
/** Per descriptor column: true when it is one of the 11 service descriptors, else one of the extras. */
const FROM_SERVICE = ADMET_DESCRIPTOR_NAMES.map((n) => (DESCRIPTOR_NAMES as readonly string[]).includes(n));
// The catalog's fingerprint column is reused as model input and the engine must compute every
// listed descriptor and Crippen type, so a features.json the engine does not implement fails here.
if (
  MORGAN_BLOCK.kind !== 'morgan_bits' ||
  MORGAN_BLOCK.radius !== MORGAN_FP.radius ||
  MORGAN_BLOCK.n_bits !== MORGAN_FP.nBits ||
  DESCRIPTOR_BLOCK.kind !== 'descriptors' ||
  !DESCRIPTOR_BLOCK.names.every((n) => KNOWN_DESCRIPTORS.includes(n)) ||
  CRIPPEN_BLOCK.kind !== 'crippen_type_counts' ||
  CRIPPEN_BLOCK.labels.join() !== CRIPPEN_LABELS.join() ||
  ADMET_CRIPPEN_OFFSET + CRIPPEN_LABELS.length !== ADMET_FEATURE_LENGTH
) {
  throw new Error(
    `models/features.json (${ADMET_FEATURE_SPEC.version}) does not match what the engine computes`,
  );
}

/**
 * Writes one molecule's features into `out[row * ADMET_FEATURE_LENGTH ...]`.
 * `fp` is the packed fingerprint as MinimalLib returns it (bit i in byte i >> 3, least significant
 * bit first); `d` the molecule's graph descriptors. Pure and synchronous.
 */
export function writeAdmetFeatures(fp: Uint8Array, d: GraphDescriptors, out: Float32Array, row = 0): void {
  const base = row * ADMET_FEATURE_LENGTH;
  if (fp.length * 8 !== ADMET_N_BITS)
    throw new RangeError(`fingerprint has ${fp.length * 8} bits, expected ${ADMET_N_BITS}`);
  if (base + ADMET_FEATURE_LENGTH > out.length)
    throw new RangeError(`row ${row} is outside the output buffer`);
  for (let byte = 0; byte < fp.length; byte++) {
    const v = fp[byte];
    const o = base + byte * 8;
    for (let bit = 0; bit < 8; bit++) out[o + bit] = (v >> bit) & 1;
  }
  for (let i = 0; i < ADMET_DESCRIPTOR_NAMES.length; i++) {
    const name = ADMET_DESCRIPTOR_NAMES[i];
    out[base + ADMET_N_BITS + i] = FROM_SERVICE[i]
      ? d.descriptors[name as DescriptorName]
      : d.extras[name as ExtraDescriptorName];
  }
  out.set(d.crippenCounts, base + ADMET_CRIPPEN_OFFSET);
}

/** Writes the features of a parsed RDKit molecule at `row` of `out` (see writeAdmetFeatures). */
export function writeAdmetFeaturesFromMol(mol: RDKitMol, out: Float32Array, row = 0): GraphDescriptors {
  const d = describeMolecule(mol);
  writeAdmetFeatures(mol.get_morgan_fp_as_uint8array(MORGAN_DETAILS) as Uint8Array, d, out, row);
  return d;
}

/** Features of a batch of SMILES. */
export interface AdmetFeatureBatch {
  /** Row-major, `n * ADMET_FEATURE_LENGTH` floats; rows of unparsable SMILES are all zero. */
  features: Float32Array;
  /** 1 where the SMILES parsed, 0 where it did not. */
  ok: Uint8Array;
  n: number;
}

/**
 * Parses each SMILES with RDKit's default sanitisation (as Python `Chem.MolFromSmiles`, no
 * standardisation) and computes its features. Never throws for bad input: unparsable rows get
 * `ok[i] = 0`. CPU-bound (~0.15 ms per molecule): call it from a worker thread for large batches.
 */
export function computeAdmetFeatures(rd: RDKitModule, smiles: readonly string[]): AdmetFeatureBatch {
  const n = smiles.length;
  const features = new Float32Array(n * ADMET_FEATURE_LENGTH);
  const ok = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    let mol: RDKitMol | null = null;
    try {
      mol = rd.get_mol(smiles[i]);
      if (!mol || !mol.is_valid()) continue;
      writeAdmetFeaturesFromMol(mol, features, i);
      ok[i] = 1;
    } catch {
      features.fill(0, i * ADMET_FEATURE_LENGTH, (i + 1) * ADMET_FEATURE_LENGTH);
    } finally {
      mol?.delete();
    }
  }
  return { features, ok, n };
}
