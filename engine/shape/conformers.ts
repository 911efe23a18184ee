/**
 * The data contract between the 3D worker (conformers and charges, Python RDKit) and the scoring
 * engine: one molecule's conformers as flat typed arrays, hydrogens included, atoms in the same order
 * in every conformer. Checked once where it enters the engine so the kernels can trust it.
 */
import { DomainError } from '../../platform/errors.ts';

export interface ConformerSet {
  atomCount: number;
  confCount: number;
  /** Atomic numbers, hydrogens included (length atomCount). */
  elements: Uint8Array;
  /** Gasteiger partial charges (length atomCount). */
  charges: Float32Array;
  /** Conformer c, atom i at coords[(c * atomCount + i) * 3 + 0..2], in Å (confCount * atomCount * 3). */
  coords: Float32Array;
}

/** Throws a validation_error naming `field` when `set` breaks the contract above. */
export function checkConformerSet(set: ConformerSet, field: (string | number)[] = ['conformers']): void {
  const problems: string[] = [];
  const { atomCount: n, confCount: c } = set;
  if (!Number.isInteger(n) || n < 1) problems.push('atomCount must be a positive integer');
  if (!Number.isInteger(c) || c < 1) problems.push('confCount must be a positive integer');
  if (set.elements?.length !== n) problems.push(`elements must hold atomCount (${n}) atomic numbers`);
  if (set.charges?.length !== n) problems.push(`charges must hold atomCount (${n}) values`);
  if (set.coords?.length !== n * c * 3) problems.push(`coords must hold confCount*atomCount*3 values`);
  if (!problems.length) {
    if (!set.elements.some((z) => z > 1)) problems.push('no heavy atom');
    if (!set.coords.every(Number.isFinite) || !set.charges.every(Number.isFinite))
      problems.push('coords and charges must be finite');
  }
  if (problems.length)
    throw new DomainError('validation_error', `invalid conformer set: ${problems.join('; ')}`, {
      issues: problems.map((msg) => ({ loc: field, msg, type: 'value_error' })),
    });
}

/** The coordinates of conformer `conf` as float64 (a copy: kernels work in double precision). */
export function conformerCoords(set: ConformerSet, conf: number): Float64Array {
  const n3 = set.atomCount * 3;
  return Float64Array.from(set.coords.subarray(conf * n3, (conf + 1) * n3));
}
