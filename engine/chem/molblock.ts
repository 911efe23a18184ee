/**
 * Minimal V2000 mol block reading and writing: just enough to delete atoms from a molecule that
 * MinimalLib wrote (it has no atom-deletion API) while keeping coordinates, so that wedge and
 * double-bond geometry still define the stereochemistry of what is left.
 */

export interface MolBlockBond {
  a: number;
  b: number;
  order: number;
  stereo: number;
  line: string;
}

export interface MolBlock {
  header: string[];
  atomLines: string[];
  bonds: MolBlockBond[];
  /** `M  CHG`, `M  RAD`, `M  ISO` entries: property tag -> atom index (0-based) -> value. */
  props: Map<string, Map<number, number>>;
}

const ATOM_PROPS = ['CHG', 'RAD', 'ISO'] as const;

/** Parses a V2000 mol block as MinimalLib writes it. Throws on V3000 or malformed input. */
export function parseMolBlock(text: string): MolBlock {
  const lines = text.split('\n');
  const counts = lines[3] ?? '';
  if (counts.includes('V3000')) throw new Error('V3000 mol blocks are not supported');
  const nAtoms = Number(counts.slice(0, 3));
  const nBonds = Number(counts.slice(3, 6));
  if (!Number.isInteger(nAtoms) || !Number.isInteger(nBonds)) throw new Error('bad mol block counts line');
  const atomLines = lines.slice(4, 4 + nAtoms);
  const bonds: MolBlockBond[] = [];
  for (let i = 0; i < nBonds; i++) {
    const line = lines[4 + nAtoms + i];
    bonds.push({
      a: Number(line.slice(0, 3)) - 1,
      b: Number(line.slice(3, 6)) - 1,
      order: Number(line.slice(6, 9)),
      stereo: Number(line.slice(9, 12)),
      line,
    });
  }
  const props = new Map<string, Map<number, number>>(ATOM_PROPS.map((p) => [p, new Map()]));
  for (const line of lines.slice(4 + nAtoms + nBonds)) {
    const tag = line.slice(3, 6);
    const map = line.startsWith('M  ') ? props.get(tag) : undefined;
    if (!map) continue;
    const n = Number(line.slice(6, 9));
    for (let k = 0; k < n; k++) {
      const off = 9 + k * 8;
      map.set(Number(line.slice(off, off + 4)) - 1, Number(line.slice(off + 4, off + 8)));
    }
  }
  return { header: lines.slice(0, 3), atomLines, bonds, props };
}

const pad = (n: number, w: number): string => String(n).padStart(w, ' ');

/**
 * Writes the sub-molecule of `mb` made of the atoms where `keep[i]` is true (in their order),
 * with bond stereo flags replaced by `bondStereo` (same length as `mb.bonds`) when given.
 */
export function writeSubMolBlock(mb: MolBlock, keep: Uint8Array, bondStereo?: Int8Array): string {
  const newIndex = new Int32Array(mb.atomLines.length).fill(-1);
  const atoms: string[] = [];
  for (let i = 0; i < mb.atomLines.length; i++) {
    if (keep[i]) {
      newIndex[i] = atoms.length;
      atoms.push(mb.atomLines[i]);
    }
  }
  const bonds: string[] = [];
  mb.bonds.forEach((bd, k) => {
    if (newIndex[bd.a] < 0 || newIndex[bd.b] < 0) return;
    const stereo = bondStereo ? bondStereo[k] : bd.stereo;
    bonds.push(
      pad(newIndex[bd.a] + 1, 3) +
        pad(newIndex[bd.b] + 1, 3) +
        pad(bd.order, 3) +
        pad(stereo, 3) +
        bd.line.slice(12),
    );
  });
  const out = [
    ...mb.header,
    `${pad(atoms.length, 3)}${pad(bonds.length, 3)}  0  0  0  0  0  0  0  0999 V2000`,
    ...atoms,
    ...bonds,
  ];
  for (const [tag, map] of mb.props) {
    const entries = [...map].filter(([i]) => newIndex[i] >= 0);
    for (let s = 0; s < entries.length; s += 8) {
      const chunk = entries.slice(s, s + 8);
      out.push(
        `M  ${tag}${pad(chunk.length, 3)}` +
          chunk.map(([i, v]) => pad(newIndex[i] + 1, 4) + pad(v, 4)).join(''),
      );
    }
  }
  out.push('M  END', '');
  return out.join('\n');
}
