/** What the synthon-space tests share: building a space from a source file, and query fingerprints. */
import { join } from 'node:path';
import type { RDKitModule } from '../../../../engine/chem/rdkit.ts';
import { MORGAN_DETAILS } from '../../../../engine/chem/fingerprint.ts';
import { buildSpace } from '../../../../engine/synthons/build-space.ts';
import { openSpace, type OpenSpace } from '../../../../engine/synthons/space.ts';

/** The bundled spaces' source files (RDKit's synthon text format, the Chemspace CSV). */
export const SPACE_SOURCES = new URL('../../../../catalogs/spaces/sources/', import.meta.url).pathname;
/** The Idorsia toy space (29,200 products), the one most tests search. */
export const IDORSIA_SOURCE = join(SPACE_SOURCES, 'idorsia_toy_space_a.txt');

/** Builds the space of `input` into `root/<dir>` (default: its id) and opens it. */
export async function builtSpace(root: string, input: string, id: string, dir = id): Promise<OpenSpace> {
  await buildSpace({ input, out: join(root, dir), id });
  return openSpace(join(root, dir));
}

/** RDKit's Morgan fingerprint of a SMILES, with the service's details (radius 2, 2048 bits). */
export function morganOf(rd: RDKitModule, smiles: string): Uint8Array {
  const mol = rd.get_mol(smiles)!;
  try {
    return new Uint8Array(mol.get_morgan_fp_as_uint8array(MORGAN_DETAILS) as Uint8Array);
  } finally {
    mol.delete();
  }
}
