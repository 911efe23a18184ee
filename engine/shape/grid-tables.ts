/**
 * First-stage grid tables of a whole shard: the Gaussian shape grid and the charge grid of every
 * row's conformers (gaussian-grid.ts), built once per shard on a pool thread. On the bundled
 * ChEMBL drugs they recall the exact ranking far better than the USRCAT-style descriptors stored
 * in the sidecars (bench/shape/README.md, recall per search quality: 0.87 vs 0.41 for shape at
 * `fast`, 0.55 vs 0.24 for ESP), at 135 floats per conformer per table instead of 60.
 */
import type { ConformerSet } from './conformers.ts';
import { prepareShape } from './frame.ts';
import { chargeGridDescriptors, gridDescriptors, GRID_LENGTH } from './gaussian-grid.ts';
import type { DescriptorTable } from './scan.ts';

/** A shard's conformers as flat arrays (the sidecar's columns; row i's slices by the offsets). */
export interface ShardConformers {
  rows: number;
  /** Conformers per row; 0 = no 3D model (the row gets no grid conformers). */
  confCounts: Uint8Array;
  atomCounts: Uint16Array;
  atomOffsets: Int32Array;
  coordOffsets: Int32Array;
  elements: Uint8Array;
  charges: Float32Array;
  coords: Float32Array;
}

export interface GridTables {
  shape: DescriptorTable;
  charge: DescriptorTable;
}

/** Row `row` of a shard as a conformer set (views), or null without a 3D model. */
export function shardRow(s: ShardConformers, row: number): ConformerSet | null {
  const confCount = s.confCounts[row];
  if (confCount === 0) return null;
  const [a0, a1] = [s.atomOffsets[row], s.atomOffsets[row + 1]];
  return {
    atomCount: s.atomCounts[row],
    confCount,
    elements: s.elements.subarray(a0, a1),
    charges: s.charges.subarray(a0, a1),
    coords: s.coords.subarray(s.coordOffsets[row], s.coordOffsets[row + 1]),
  };
}

/**
 * Catalogs with at most this many conformers get grid tables for the first stage (2 × 540 bytes
 * per conformer: ~108 MB at the limit), in the synchronous search and in 3D jobs alike; larger ones
 * are screened by the sidecars' USRCAT-style descriptors, which recall the exact ranking far less
 * (bench/shape/README.md).
 */
export const GRID_MAX_CONFORMERS = 100_000;

/** Conformers of a shard's grid tables: what bounds their memory (2 × 540 bytes each). */
export function gridConformers(s: ShardConformers): number {
  let n = 0;
  for (let r = 0; r < s.rows; r++) n += s.confCounts[r];
  return n;
}

/**
 * Both grid tables of a shard, in shared memory so scans on other threads read them without a
 * copy. Row r's conformers are offsets[r] .. offsets[r+1]−1 (none for a row without 3D model).
 */
export function buildGridTables(s: ShardConformers): GridTables {
  const offsets = new Uint32Array(new SharedArrayBuffer((s.rows + 1) * 4));
  for (let r = 0; r < s.rows; r++) offsets[r + 1] = offsets[r] + s.confCounts[r];
  const total = offsets[s.rows] * GRID_LENGTH;
  const shape = new Float32Array(new SharedArrayBuffer(total * 4));
  const charge = new Float32Array(new SharedArrayBuffer(total * 4));
  for (let r = 0; r < s.rows; r++) {
    const set = shardRow(s, r);
    if (!set) continue;
    const p = prepareShape(set);
    shape.set(gridDescriptors(p), offsets[r] * GRID_LENGTH);
    charge.set(chargeGridDescriptors(p), offsets[r] * GRID_LENGTH);
  }
  return { shape: { descriptors: shape, offsets }, charge: { descriptors: charge, offsets } };
}
