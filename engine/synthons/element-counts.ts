/**
 * A screen before the fragment match of the space substructure search: a synthon can contain a
 * fragment skeleton only if it has at least as many atoms of each element as the fragment names
 * (`[#Z]`, connectors `[#0]`). Both counts are read from text, the synthon's from its SMILES
 * (every heavy atom is written, organic-subset or bracketed), so most synthons of a slot are
 * ruled out without being parsed by RDKit, the costly step on a large slot. Only heavy atoms and
 * dummies are counted: a fragment naming hydrogen is not screened.
 */

const ELEMENTS = (
  'H He Li Be B C N O F Ne Na Mg Al Si P S Cl Ar K Ca Sc Ti V Cr Mn Fe Co Ni Cu Zn Ga Ge As Se Br Kr ' +
  'Rb Sr Y Zr Nb Mo Tc Ru Rh Pd Ag Cd In Sn Sb Te I Xe Cs Ba La Ce Pr Nd Pm Sm Eu Gd Tb Dy Ho Er Tm Yb Lu Hf Ta W Re ' +
  'Os Ir Pt Au Hg Tl Pb Bi Po At Rn Fr Ra Ac Th Pa U Np Pu Am Cm Bk Cf Es Fm Md No Lr'
).split(' ');
const Z = new Map<string, number>(ELEMENTS.map((s, i) => [s, i + 1]));
for (const [s, z] of [
  ['c', 6],
  ['n', 7],
  ['o', 8],
  ['s', 16],
  ['p', 15],
  ['b', 5],
  ['se', 34],
  ['as', 33],
  ['te', 52],
  ['*', 0],
] as const)
  Z.set(s, z);

/** Atomic number of an element symbol as SMILES writes it (`c`, `se`: aromatic; `*`: 0). */
export function symbolZ(symbol: string): number | undefined {
  return Z.get(symbol);
}

/** Element → atom count of a SMILES (H excluded), or undefined when it cannot be read. */
export function smilesElementCounts(smiles: string): Map<number, number> | undefined {
  const counts = new Map<number, number>();
  const add = (z: number) => counts.set(z, (counts.get(z) ?? 0) + 1);
  for (let i = 0; i < smiles.length;) {
    const c = smiles[i];
    if (c === '[') {
      const end = smiles.indexOf(']', i);
      if (end < 0) return undefined;
      // Isotope digits, then the symbol: two letters when the second is lower case (Cl, se).
      const m = /^\d*(\*|[A-Z][a-z]?|se|as|te|[cnospb])/.exec(smiles.slice(i + 1, end));
      let z = m ? Z.get(m[1]) : undefined;
      if (z === undefined && m && m[1].length === 2) z = Z.get(m[1][0]); // e.g. [Ho] is read as Ho
      if (z === undefined) return undefined;
      if (z !== 1) add(z);
      i = end + 1;
    } else if (/[A-Za-z*]/.test(c)) {
      const two = smiles.slice(i, i + 2);
      const sym = two === 'Cl' || two === 'Br' ? two : c;
      const z = Z.get(sym);
      if (z === undefined || !/^(Cl|Br|[BCNOPSFI]|[bcnops]|\*)$/.test(sym)) return undefined;
      add(z);
      i += sym.length;
    } else i++;
  }
  return counts;
}

/** Element → atoms a skeleton SMARTS names (fragments.ts writes atoms `[#Z]` or `*`). */
export function skeletonNeeds(smarts: string): Map<number, number> {
  const needs = new Map<number, number>();
  for (const m of smarts.matchAll(/\[#(\d+)\]/g)) needs.set(Number(m[1]), (needs.get(Number(m[1])) ?? 0) + 1);
  return needs;
}

/** False only when the synthon surely lacks atoms the fragment needs. */
export function mayContain(counts: Map<number, number> | undefined, needs: Map<number, number>): boolean {
  if (!counts || needs.has(1)) return true;
  for (const [z, n] of needs) if ((counts.get(z) ?? 0) < n) return false;
  return true;
}

/**
 * False only when the synthon surely cannot fit in the query (superstructure): each of its atoms
 * but connectors and hydrogens maps onto a distinct query atom of the same element.
 */
export function mayFitIn(counts: Map<number, number> | undefined, query: Map<number, number>): boolean {
  if (!counts) return true;
  for (const [z, n] of counts) if (z > 1 && (query.get(z) ?? 0) < n) return false;
  return true;
}

/** Element → count of a skeleton's atoms (`z` per atom). */
export function zCounts(z: ArrayLike<number>): Map<number, number> {
  const out = new Map<number, number>();
  for (let i = 0; i < z.length; i++) out.set(z[i], (out.get(z[i]) ?? 0) + 1);
  return out;
}
