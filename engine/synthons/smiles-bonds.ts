/**
 * RDKit's bond numbering of a molecule parsed from SMILES, without parsing it: chain bonds in
 * the order their second atom is read, then the ring-closure bonds, by ring-closure number
 * ascending and, for a number used several times, in the order its pairs close (RDKit's
 * SmilesParseOps::CloseMolRings walks the ring bookmarks, a sorted map, after the parse). Atoms are
 * numbered in the order they are read. Checked against RDKit's parse in the tests.
 */

export interface SmilesBonds {
  atoms: number;
  /** Bond index by atom pair key (smaller index × 65536 + larger). */
  index: Map<number, number>;
}

/** First letters of atoms outside brackets (organic subset, aromatic forms, `*`). */
const ORGANIC_FIRST = new Set('BCNOPSFIbcnops*');

/** Undefined when the SMILES uses something this reader does not follow (it then stays exact). */
export function smilesBonds(smiles: string): SmilesBonds | undefined {
  const pairs: Array<[number, number]> = [];
  const ring = new Map<number, number[]>();
  const stack: number[] = [];
  let prev = -1;
  let atoms = 0;
  let i = 0;
  const addAtom = () => {
    const a = atoms++;
    if (prev >= 0) pairs.push([prev, a]);
    prev = a;
  };
  while (i < smiles.length) {
    const c = smiles[i];
    if (c === '[') {
      const end = smiles.indexOf(']', i);
      if (end < 0) return undefined;
      addAtom();
      i = end + 1;
    } else if (ORGANIC_FIRST.has(c)) {
      addAtom();
      const next = smiles[i + 1];
      i += (c === 'C' && next === 'l') || (c === 'B' && next === 'r') ? 2 : 1;
    } else if (c === '(') {
      stack.push(prev);
      i++;
    } else if (c === ')') {
      if (!stack.length) return undefined;
      prev = stack.pop()!;
      i++;
    } else if (c === '.') {
      prev = -1;
      i++;
    } else if ('-=#$:/\\'.includes(c)) i++;
    else if (c >= '0' && c <= '9') {
      addRing(ring, Number(c), prev);
      i++;
    } else if (c === '%') {
      const m = /^%(\d{2}|\(\d+\))/.exec(smiles.slice(i));
      if (!m) return undefined;
      addRing(ring, Number(m[1].replace(/[()]/g, '')), prev);
      i += m[0].length;
    } else return undefined;
  }
  for (const n of [...ring.keys()].sort((a, b) => a - b)) {
    const list = ring.get(n)!;
    if (list.length % 2) return undefined;
    for (let k = 0; k < list.length; k += 2) pairs.push([list[k], list[k + 1]]);
  }
  const index = new Map<number, number>();
  pairs.forEach(([a, b], k) => index.set(a < b ? a * 65536 + b : b * 65536 + a, k));
  return { atoms, index };
}

function addRing(ring: Map<number, number[]>, n: number, atom: number) {
  const list = ring.get(n) ?? [];
  list.push(atom);
  ring.set(n, list);
}
