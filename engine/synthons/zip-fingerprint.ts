/**
 * The product fingerprint of a tuple only RDKit can assemble (a ring closed, a double or aromatic
 * connector bond), for scoring, at about 0.6 of assemble.ts's cost.
 *
 * assemble.ts parses the synthons joined by '.', zips them, writes the canonical SMILES, parses it
 * and writes the canonical SMILES again. Scoring needs only the fingerprint, so here the synthon
 * molecules are parsed once and kept (bounded, per slot), zipped slot by slot with molzip (the
 * connectors written as atom maps, molzip's default label), written as SMILES without the
 * canonical ordering and parsed once with full sanitisation. That parse reads the same graph as
 * assemble.ts's, in another atom order, and Morgan bits do not depend on atom order, so the
 * fingerprint is the same (the tests compare both on every tuple of the ring-closing sample).
 * Anything unusual — a synthon with an atom map or an explicit aromatic bond of its own, a zip
 * that leaves fragments, a parse that fails — returns undefined, and the caller takes
 * assemble.ts's path, which decides validity as it always has.
 */
import { FP_BYTES, MORGAN_DETAILS } from '../chem/fingerprint.ts';
import type { RDKitModule, RDKitMol } from '../chem/rdkit.ts';
import { mappedSynthonMol } from './assemble.ts';
import type { SlotColumns } from './format.ts';
import { zipWouldThrow } from './zip-valence.ts';

const NON_CANONICAL = JSON.stringify({ canonical: false });
/**
 * The product's parse for its Morgan bits only: stereo perception is skipped (the bits ignore
 * chirality) and so is the removal of explicit hydrogens, which a SMILES without a hydrogen atom
 * of its own (checked before) has none of. 0.12 instead of 0.20 ms a product, the same bits on
 * 2,170 ring-closing tuples of the 10^9 space (2026-11-25).
 */
const FP_PARSE = JSON.stringify({ assignStereo: false, removeHs: false });
/** A hydrogen atom written in brackets ([H], [2H], [H+]), not a hydrogen count ([nH]). */
const H_ATOM = /\[\d*H[^a-z]/;
/** Synthon molecules kept per thread (~15 KB each); all are freed when the count reaches this. */
const MAX_MOLS = 10_000;

let held = 0;
let slots = new Map<SlotColumns, Map<number, RDKitMol | null>>();

function synthonMol(rd: RDKitModule, slot: SlotColumns, i: number): RDKitMol | null {
  let mols = slots.get(slot);
  if (!mols) slots.set(slot, (mols = new Map()));
  let m = mols.get(i);
  if (m !== undefined) return m;
  // An atom map or aromatic bond of the synthon's own would be taken for a connector label.
  m = slot.smiles[i].includes(':') ? null : mappedSynthonMol(rd, slot.smiles[i]);
  mols.set(i, m);
  held++;
  return m;
}

/** Frees every kept synthon molecule (tests, and the cap). */
export function clearSynthonMols(): void {
  for (const mols of slots.values()) for (const m of mols.values()) m?.delete();
  slots = new Map();
  held = 0;
}

/** Synthon molecules kept now. */
export const keptSynthonMols = (): number => held;

/**
 * The product's Morgan fingerprint, or undefined when assemble.ts must decide. `cap`: the kept
 * molecules' bound (a test sets a small one).
 */
export function zipFingerprint(
  rd: RDKitModule,
  tupleSlots: readonly SlotColumns[],
  synthons: readonly number[],
  cap = MAX_MOLS,
): Uint8Array | undefined {
  // molzip would throw, and every exception leaks WebAssembly memory (zip-valence.ts).
  if (
    zipWouldThrow(
      rd,
      synthons.map((i, s) => tupleSlots[s].smiles[i]),
    )
  )
    return undefined;
  // Only here, before any molecule of this tuple is taken: a clear frees them all.
  if (held >= cap) clearSynthonMols();
  const parts: RDKitMol[] = [];
  for (let s = 0; s < synthons.length; s++) {
    const m = synthonMol(rd, tupleSlots[s], synthons[s]);
    if (!m) return undefined;
    parts.push(m);
  }
  let zipped: RDKitMol | null = parts[0];
  let product: RDKitMol | null = null;
  try {
    for (let s = 1; s < parts.length && zipped; s++) {
      const next: RDKitMol | null = rd.molzip(zipped, parts[s], '{}');
      if (s > 1) zipped.delete();
      zipped = next?.is_valid() ? next : (next?.delete(), null);
    }
    if (!zipped || parts.length < 2) return undefined;
    const smiles = zipped.get_smiles(NON_CANONICAL);
    if (smiles.includes('.')) return undefined;
    product = H_ATOM.test(smiles) ? rd.get_mol(smiles) : rd.get_mol(smiles, FP_PARSE);
    if (!product?.is_valid()) return undefined;
    const fp = new Uint8Array(product.get_morgan_fp_as_uint8array(MORGAN_DETAILS) as Uint8Array);
    return fp.length === FP_BYTES ? fp : undefined;
  } catch {
    return undefined;
  } finally {
    if (parts.length > 1 && zipped !== parts[0]) zipped?.delete();
    product?.delete();
  }
}
