/**
 * A 3D mol block of a catalog molecule from its SMILES and the coordinates the chem3d worker made
 * (hydrogens included). The sidecars store atoms and coordinates but no bonds, so the bonds come
 * from RDKit: the same preparation as chem3d/embed.py (largest fragment, first of equals; AddHs),
 * whose atom order is the sidecar's. When the elements disagree the atoms are written without
 * bonds rather than with bonds between the wrong atoms.
 */
import type { RDKitModule } from './rdkit.ts';

const SYMBOLS = [
  '*', 'H', 'He', 'Li', 'Be', 'B', 'C', 'N', 'O', 'F', 'Ne', 'Na', 'Mg', 'Al', 'Si', 'P', 'S', 'Cl',
  'Ar', 'K', 'Ca', 'Sc', 'Ti', 'V', 'Cr', 'Mn', 'Fe', 'Co', 'Ni', 'Cu', 'Zn', 'Ga', 'Ge', 'As', 'Se',
  'Br', 'Kr', 'Rb', 'Sr', 'Y', 'Zr', 'Nb', 'Mo', 'Tc', 'Ru', 'Rh', 'Pd', 'Ag', 'Cd', 'In', 'Sn', 'Sb',
  'Te', 'I', 'Xe',
]; // prettier-ignore

export const elementSymbol = (z: number): string => SYMBOLS[z] ?? '*';

const coord = (v: number) => v.toFixed(4).padStart(10);

/** The V2000 mol block of the largest fragment of `smiles` with explicit hydrogens, or undefined. */
function molblockWithHs(rd: RDKitModule, smiles: string): string | undefined {
  const mol = rd.get_mol(smiles);
  if (!mol) return undefined;
  try {
    if (!mol.is_valid()) return undefined;
    // One fragment (most catalog rows): no fragment list to build.
    if (!smiles.includes('.')) return mol.add_hs();
    const { molList } = mol.get_frags() as {
      molList: {
        size(): number;
        at(i: number): { get_num_atoms(): number; add_hs(): string; delete(): void };
        delete(): void;
      };
    };
    let best = 0;
    let bestAtoms = -1;
    const n = molList.size();
    const frags = Array.from({ length: n }, (_, i) => molList.at(i));
    try {
      // Heavy atoms (no explicit hydrogens in catalog SMILES); max keeps the first of equals, as Python does.
      frags.forEach((f, i) => {
        const atoms = f.get_num_atoms();
        if (atoms > bestAtoms) [best, bestAtoms] = [i, atoms];
      });
      return frags[best]?.add_hs();
    } finally {
      // The list owns its own copies of the fragments: without this the WASM heap grows by every
      // multi-fragment row exported (a 100k-row SDF peaked at 1.26 GB).
      for (const f of frags) f.delete();
      molList.delete();
    }
  } finally {
    mol.delete();
  }
}

/** Atoms only (no bonds): the fallback when RDKit's atom order does not match the coordinates. */
function atomsOnly(elements: ArrayLike<number>, xyz: ArrayLike<number>): string {
  const n = elements.length;
  let out = `\n     molsearch      3D\n\n${String(n).padStart(3)}  0  0  0  0  0  0  0  0  0999 V2000\n`;
  for (let i = 0; i < n; i++)
    out += `${coord(xyz[3 * i])}${coord(xyz[3 * i + 1])}${coord(xyz[3 * i + 2])} ${elementSymbol(elements[i]).padEnd(3)} 0  0  0  0  0  0  0  0  0  0  0  0\n`;
  return out + 'M  END\n';
}

/**
 * The mol block of `smiles` at coordinates `xyz` (atom i at xyz[3i..3i+2], Å), atoms in the order
 * of `elements`: RDKit's bonds when its hydrogen-complete largest fragment has the same elements in
 * the same order, else the atoms alone. The first (title) line is empty; the second says 3D.
 */
export function molblock3d(
  rd: RDKitModule,
  smiles: string,
  elements: ArrayLike<number>,
  xyz: ArrayLike<number>,
): string {
  const mb = molblockWithHs(rd, smiles);
  if (!mb) return atomsOnly(elements, xyz);
  const lines = mb.split('\n');
  const counts = lines[3] ?? '';
  const n = Number(counts.slice(0, 3));
  if (n !== elements.length || !counts.includes('V2000')) return atomsOnly(elements, xyz);
  for (let i = 0; i < n; i++) {
    const line = lines[4 + i];
    if (line.slice(31, 34).trim() !== elementSymbol(elements[i])) return atomsOnly(elements, xyz);
    lines[4 + i] = coord(xyz[3 * i]) + coord(xyz[3 * i + 1]) + coord(xyz[3 * i + 2]) + line.slice(30);
  }
  lines[0] = '';
  lines[1] = '     RDKit          3D';
  return lines.join('\n');
}
