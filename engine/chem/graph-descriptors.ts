/**
 * Everything the catalog and the ADMET models need besides the fingerprint, from one molecule graph:
 * the 11 service descriptors, three more model descriptors and the Wildman-Crippen atom-type counts.
 * Each function is checked equal to Python RDKit (test/engine/chem/*.test.ts); together they cost a
 * few microseconds where MinimalLib's all-in-one `get_descriptors()` costs ~450 µs.
 */
import {
  formalCharge,
  fractionCSP3,
  numAromaticRings,
  numAtoms,
  numHeavyAtoms,
  numHeteroatoms,
  numRings,
} from './counts.ts';
import { CRIPPEN_LABELS, crippen, crippenTypeCounts } from './crippen.ts';
import type { Descriptors } from './descriptors.ts';
import { graphFromRDKitJson, type MolGraph } from './graph.ts';
import { numHBA, numHBD, numRotatableBonds } from './lipinski.ts';
import type { RDKitMol } from './rdkit.ts';
import { tpsa } from './tpsa.ts';
import { averageMolWeight } from './weight.ts';

/** Model descriptors beyond the 11 service ones (RDKit CalcFractionCSP3, CalcNumAromaticRings, CalcNumHeteroatoms). */
export const EXTRA_DESCRIPTOR_NAMES = ['fraction_csp3', 'num_aromatic_rings', 'num_heteroatoms'] as const;
export type ExtraDescriptorName = (typeof EXTRA_DESCRIPTOR_NAMES)[number];

export interface GraphDescriptors {
  descriptors: Descriptors;
  extras: Record<ExtraDescriptorName, number>;
  /** Atoms of the hydrogen-added molecule per Crippen type, in CRIPPEN_LABELS order. */
  crippenCounts: Float32Array;
}

/**
 * The descriptors of a graph. Returns `null` for the rare molecule where the TypeScript path cannot
 * promise RDKit's value: RDKit stops Crippen typing after 1000 matches of one pattern (very large
 * molecules), which can change its logP and MR; describeMolecule then asks MinimalLib.
 */
export function graphDescriptors(g: MolGraph): GraphDescriptors | null {
  const c = crippen(g);
  const mw = averageMolWeight(g);
  if (c === null || mw === null) return null;
  return {
    descriptors: serviceDescriptors(g, mw, c.logp, c.mr),
    extras: extras(g),
    crippenCounts: typeCounts(g),
  };
}

/** Crippen type counts of g (uncapped, as the training computed them; reuses crippen()'s typing of g). */
function typeCounts(g: MolGraph): Float32Array {
  const counts = new Float32Array(CRIPPEN_LABELS.length);
  crippenTypeCounts(g, counts, 0);
  return counts;
}

function serviceDescriptors(g: MolGraph, mw: number, logp: number, mr: number): Descriptors {
  return {
    molecular_weight: mw,
    formal_charge: formalCharge(g),
    clogp: logp,
    heavy_atoms: numHeavyAtoms(g),
    h_bond_acceptors: numHBA(g),
    h_bond_donor: numHBD(g),
    rotatable_bonds: numRotatableBonds(g),
    num_of_rings: numRings(g),
    molar_refractivity: mr,
    number_of_atoms: numAtoms(g),
    topological_surface_area_mapping: tpsa(g),
  };
}

function extras(g: MolGraph): Record<ExtraDescriptorName, number> {
  return {
    fraction_csp3: fractionCSP3(g),
    num_aromatic_rings: numAromaticRings(g),
    num_heteroatoms: numHeteroatoms(g),
  };
}

/**
 * Descriptors of a parsed MinimalLib molecule: from its graph (`get_json()`), falling back to
 * MinimalLib's `get_descriptors()` for what graphDescriptors declines. Crippen counts are always
 * from the graph (uncapped, as the training computed them).
 */
export function describeMolecule(mol: RDKitMol): GraphDescriptors {
  const g = graphFromRDKitJson(mol.get_json());
  const fast = graphDescriptors(g);
  if (fast) return fast;
  const rd = JSON.parse(mol.get_descriptors()) as Record<string, number>;
  return {
    descriptors: serviceDescriptors(g, averageMolWeight(g) ?? rd.amw, rd.CrippenClogP, rd.CrippenMR),
    extras: extras(g),
    crippenCounts: typeCounts(g),
  };
}
