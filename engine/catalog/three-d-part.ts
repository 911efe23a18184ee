/**
 * Reads the part files the chem3d worker writes during a catalog's 3D stage (format in
 * chem3d/partfile.py): per row a molecule in the 3D contract, or the reason it has none.
 */
import { CatalogError } from './errors.ts';
import type { Molecule3d } from './three-d-schema.ts';

const MAGIC = 'C3DPART1\n';

export interface Part3d {
  rows: number;
  rdkitVersion: string;
  /** One per row: the molecule, or null with `reasons[i]` set. */
  molecules: (Molecule3d | null)[];
  reasons: (string | null)[];
}

type Entry = { atoms: number; confs: number } | { reason: string };

/** Parses a part file; throws CatalogError('catalog_corrupt') when it is truncated or malformed. */
export function readPart3d(bytes: Uint8Array, name: string): Part3d {
  const corrupt = (why: string): never => {
    throw new CatalogError('catalog_corrupt', `3D part ${name}: ${why}`);
  };
  const magic = new TextDecoder().decode(bytes.subarray(0, MAGIC.length));
  if (magic !== MAGIC) corrupt('not a chem3d part file');
  const nl = bytes.indexOf(10, MAGIC.length);
  if (nl < 0) corrupt('no header');
  let header: { rows: number; rdkit_version: string; molecules: Entry[] };
  try {
    header = JSON.parse(new TextDecoder().decode(bytes.subarray(MAGIC.length, nl)));
  } catch {
    return corrupt('header is not JSON');
  }
  if (header.molecules.length !== header.rows) corrupt('row count differs from entries');
  let atoms = 0;
  let coords = 0;
  for (const e of header.molecules)
    if ('atoms' in e) {
      atoms += e.atoms;
      coords += e.atoms * e.confs * 3;
    }
  const elStart = nl + 1;
  const chStart = elStart + atoms + (-atoms & 3);
  const coStart = chStart + atoms * 4;
  if (bytes.length !== coStart + coords * 4)
    corrupt(`${bytes.length} bytes, expected ${coStart + coords * 4}`);
  // One aligned copy of the float sections, then views per molecule.
  const floats = new Float32Array(new Uint8Array(bytes.subarray(chStart)).buffer);
  const molecules: (Molecule3d | null)[] = [];
  const reasons: (string | null)[] = [];
  let a = 0;
  let c = 0;
  for (const e of header.molecules) {
    if ('reason' in e) {
      molecules.push(null);
      reasons.push(e.reason);
      continue;
    }
    const n = e.atoms * e.confs * 3;
    molecules.push({
      atomCount: e.atoms,
      confCount: e.confs,
      elements: bytes.slice(elStart + a, elStart + a + e.atoms),
      charges: floats.subarray(a, a + e.atoms),
      coords: floats.subarray(atoms + c, atoms + c + n),
    });
    reasons.push(null);
    a += e.atoms;
    c += n;
  }
  return { rows: header.rows, rdkitVersion: header.rdkit_version, molecules, reasons };
}
