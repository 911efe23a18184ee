/**
 * Conformer sets laid out as one shard's conformer columns (what a catalog's 3D sidecar holds and
 * the ESP pre-stage and grid tables read), so tests and benchmarks can run the shard kernels over
 * molecules they embedded or loaded themselves.
 */
import type { ConformerSet } from '../engine/shape/conformers.ts';
import type { ShardConformers } from '../engine/shape/grid-tables.ts';

export function asShard(sets: readonly ConformerSet[]): ShardConformers {
  const atomOffsets = new Int32Array(sets.length + 1);
  const coordOffsets = new Int32Array(sets.length + 1);
  sets.forEach((m, i) => {
    atomOffsets[i + 1] = atomOffsets[i] + m.atomCount;
    coordOffsets[i + 1] = coordOffsets[i] + m.coords.length;
  });
  const s: ShardConformers = {
    rows: sets.length,
    confCounts: Uint8Array.from(sets, (m) => m.confCount),
    atomCounts: Uint16Array.from(sets, (m) => m.atomCount),
    atomOffsets,
    coordOffsets,
    elements: new Uint8Array(atomOffsets[sets.length]),
    charges: new Float32Array(atomOffsets[sets.length]),
    coords: new Float32Array(coordOffsets[sets.length]),
  };
  sets.forEach((m, i) => {
    s.elements.set(m.elements, atomOffsets[i]);
    s.charges.set(m.charges, atomOffsets[i]);
    s.coords.set(m.coords, coordOffsets[i]);
  });
  return s;
}
