/**
 * Lipinski's rule of five (Lipinski et al., Adv. Drug Deliv. Rev. 23, 3-25, 1997) over the
 * descriptors a catalog already stores, so no RDKit work is needed per row:
 *   molecular_weight (Descriptors.MolWt) <= 500, clogp (Crippen.MolLogP) <= 5,
 *   h_bond_donor (rdMolDescriptors.CalcNumHBD, = RDKit's Lipinski.NumHDonors) <= 5,
 *   h_bond_acceptors (rdMolDescriptors.CalcNumHBA, = RDKit's Lipinski.NumHAcceptors) <= 10.
 * A molecule passes with at most one violation (the paper's "poor absorption is more likely when
 * two or more parameters are out of range"). Bounds are inclusive.
 */

export const LIPINSKI_LIMITS = {
  molecular_weight: 500,
  clogp: 5,
  h_bond_donor: 5,
  h_bond_acceptors: 10,
} as const;
export type LipinskiInput = Record<keyof typeof LIPINSKI_LIMITS, number>;
export const LIPINSKI_COLUMNS = Object.keys(LIPINSKI_LIMITS) as (keyof typeof LIPINSKI_LIMITS)[];

/** How many of the four limits the molecule exceeds; a missing (non-finite) value counts as one. */
export function lipinskiViolations(d: LipinskiInput): number {
  let n = 0;
  for (const k of LIPINSKI_COLUMNS) if (!(d[k] <= LIPINSKI_LIMITS[k])) n++;
  return n;
}

/** True when the molecule breaks at most one of the four limits. */
export function lipinskiPass(d: LipinskiInput): boolean {
  return lipinskiViolations(d) <= 1;
}
