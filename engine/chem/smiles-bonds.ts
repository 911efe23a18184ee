/**
 * A light SMILES tokenizer that finds which bonds of the *input* carry '/' or '\' marks, by the
 * atom indices RDKit gives (atoms in order of appearance). The scaffold code needs it because
 * RDKit keeps a double bond's cis/trans after atom removal only while each end still has one of
 * those marked bonds.
 */

const ORGANIC = /^(Cl|Br|B|C|N|O|P|S|F|I|b|c|n|o|p|s|\*)/;

/**
 * Directional bonds of a SMILES as "i-j" keys (i < j, RDKit atom indices). Returns `undefined`
 * when indices cannot be trusted: explicit hydrogens ([H]), which RDKit removes and so renumbers.
 */
export function directionalBonds(smiles: string): Set<string> | undefined {
  const out = new Set<string>();
  const branch: number[] = [];
  const rings = new Map<string, { atom: number; dir: boolean }>();
  let prev = -1;
  let atoms = 0;
  let pendingDir = false;
  let i = 0;
  const link = (a: number, b: number, dir: boolean): void => {
    if (dir && a >= 0) out.add(a < b ? `${a}-${b}` : `${b}-${a}`);
  };
  while (i < smiles.length) {
    const ch = smiles[i];
    if (ch === '[') {
      const end = smiles.indexOf(']', i);
      if (end < 0) return undefined;
      if (/^\[H[^a-z]/.test(smiles.slice(i, end + 1)) && !/^\[\d/.test(smiles.slice(i))) return undefined;
      link(prev, atoms, pendingDir);
      prev = atoms++;
      pendingDir = false;
      i = end + 1;
    } else if (ORGANIC.test(smiles.slice(i, i + 2))) {
      const len = ORGANIC.exec(smiles.slice(i, i + 2))![0].length;
      link(prev, atoms, pendingDir);
      prev = atoms++;
      pendingDir = false;
      i += len;
    } else if (ch === '/' || ch === '\\') {
      pendingDir = true;
      i++;
    } else if (ch === '(') {
      branch.push(prev);
      i++;
    } else if (ch === ')') {
      prev = branch.pop() ?? -1;
      i++;
    } else if (ch === '.') {
      prev = -1;
      pendingDir = false;
      i++;
    } else if (ch === '%' || (ch >= '0' && ch <= '9')) {
      const label = ch === '%' ? smiles.slice(i, i + 3) : ch;
      i += label.length;
      const open = rings.get(label);
      if (open) {
        link(open.atom, prev, open.dir || pendingDir);
        rings.delete(label);
      } else rings.set(label, { atom: prev, dir: pendingDir });
      pendingDir = false;
    } else i++; // other bond symbols (-=#$:) and anything unknown
  }
  return out;
}
