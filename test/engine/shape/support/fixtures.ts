/** The reference fixtures of bench/shape/reference.py as ConformerSets. */
import { readFileSync } from 'node:fs';
import type { ConformerSet } from '../../../../engine/shape/conformers.ts';

const DIR = new URL('../../../fixtures/shape/', import.meta.url);
const read = <T>(name: string): T => JSON.parse(readFileSync(new URL(name, DIR), 'utf8')) as T;

interface MoleculeRecord {
  id: string;
  smiles: string;
  atomCount: number;
  confCount: number;
  elements: number[];
  charges: number[];
  coords: number[];
  /** RDKit's GetUSR of the heavy atoms, per conformer. */
  usr: number[][];
}

export interface FixedPose {
  probe: number;
  probeConf: number;
  ref: number;
  refConf: number;
  aligned: boolean;
  probeCoords: number[];
  grid_shape: number;
  pubchem_shape: number;
  gauss_shape: number;
  gauss_shape_h: number;
  esp_carbo: number;
  esp_tanimoto: number;
}

export interface AlignedPair {
  probe: number;
  ref: number;
  rdkit_shape_align: number;
  rdkit_ms_per_pair: number;
  espsim_grid_shape: number;
  espsim_esp_carbo: number;
}

export const toSet = (m: MoleculeRecord): ConformerSet & { id: string; smiles: string; usr: number[][] } => ({
  id: m.id,
  usr: m.usr,
  smiles: m.smiles,
  atomCount: m.atomCount,
  confCount: m.confCount,
  elements: Uint8Array.from(m.elements),
  charges: Float32Array.from(m.charges),
  coords: Float32Array.from(m.coords),
});

export const molecules = () => read<{ molecules: MoleculeRecord[] }>('molecules.json').molecules.map(toSet);
export const fixedPoses = () => read<{ poses: FixedPose[] }>('fixed.json').poses;
export const alignedPairs = () => read<{ pairs: AlignedPair[] }>('aligned.json').pairs;
