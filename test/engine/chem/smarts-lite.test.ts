import { beforeAll, describe, expect, it } from 'vitest';
import type { MolGraph } from '../../../engine/chem/graph.ts';
import { getRDKit, type RDKitModule } from '../../../engine/chem/rdkit.ts';
import {
  compileSmarts,
  countEmbeddings,
  expandHydrogens,
  matchesAt,
  rootMayMatch,
} from '../../../engine/chem/smarts-lite.ts';
import { graphOf } from '../../support/mol-graph.ts';

let rd: RDKitModule;
beforeAll(async () => {
  rd = await getRDKit();
});

const graph = (smiles: string): MolGraph => graphOf(rd, smiles);

/**
 * Atoms (ids; hydrogens of withHs after the graph atoms) at which `smarts` matches rooted. Every
 * expectation below was also checked with Python RDKit (match[0] of GetSubstructMatches, uniquify off).
 */
function roots(smarts: string, smiles: string, withHs = false): number[] {
  const p = compileSmarts(smarts);
  const g = graph(smiles);
  const h = withHs ? expandHydrogens(g) : null;
  const out: number[] = [];
  for (let a = 0; a < g.n + (h ? h.count : 0); a++) if (matchesAt(p, g, a, h)) out.push(a);
  return out;
}

describe('smarts-lite follows RDKit SMARTS semantics', () => {
  it('tells aliphatic uppercase from aromatic lowercase elements, and #n matches both', () => {
    // Cc1ccccc1: atom 0 aliphatic C, 1..6 aromatic c
    expect(roots('C', 'Cc1ccccc1')).toEqual([0]);
    expect(roots('[c]', 'Cc1ccccc1')).toEqual([1, 2, 3, 4, 5, 6]);
    expect(roots('[#6]', 'Cc1ccccc1')).toHaveLength(7);
    expect(roots('[Cl,Br]', 'ClCCBr')).toEqual([0, 3]);
  });

  it('counts total hydrogens for H, graph neighbours for D and all connections for X', () => {
    // CC(C)O: C0 H3, C1 H1 (D3 X4), C2 H3, O3 H1
    expect(roots('[CH3]', 'CC(C)O')).toEqual([0, 2]);
    expect(roots('[!H0;#8]', 'CC(C)O')).toEqual([3]);
    expect(roots('[CD3X4]', 'CC(C)O')).toEqual([1]);
    expect(roots('[X1]', 'CC(C)O')).toEqual([]);
    expect(roots('[NH2]', '[2H]N([2H])C')).toEqual([1]); // hydrogen atoms in the graph count in H
    expect(roots('[ND3]', '[2H]N([2H])C')).toEqual([1]); // ... and in D
  });

  it('reads charges +, -, +n, -n, +0 and -0', () => {
    expect(roots('[N+]', 'C[N+](C)(C)C.[O-]C')).toEqual([1]);
    expect(roots('[O-]', 'C[N+](C)(C)C.[O-]C')).toEqual([5]);
    expect(roots('[#6;-0]', 'C[N+](C)(C)C.[O-]C')).toEqual([0, 2, 3, 4, 6]);
    expect(roots('[+0]', '[Fe+2].[Cl-].[Cl-].O')).toEqual([3]);
    expect(roots('[+2]', '[Fe+2].[Cl-].[Cl-].O')).toEqual([0]);
  });

  it('uses Kekulé valence for v and the ring set for R, r, x and @', () => {
    // c1cc[nH]c1: pyrrole n has valence 3, carbons 4
    expect(roots('[v3]', 'c1cc[nH]c1')).toEqual([3]);
    // C1CC1CC: 0..2 in a three-membered ring
    expect(roots('[R]', 'C1CC1CC')).toEqual([0, 1, 2]);
    expect(roots('[r3]', 'C1CC1CC')).toEqual([0, 1, 2]);
    expect(roots('[x3]', 'C1CC1CC')).toEqual([]);
    expect(roots('[x2]', 'C1CC1CC')).toEqual([0, 1, 2]);
    expect(roots('C@C', 'C1CC1CC')).toEqual([0, 1, 2]);
    expect(roots('C!@C', 'C1CC1CC')).toEqual([2, 3, 4]);
  });

  it('takes a bond without symbol as single or aromatic, - as single only', () => {
    expect(roots('cc', 'c1ccccc1C=C')).toEqual([0, 1, 2, 3, 4, 5]);
    expect(roots('c-C', 'c1ccccc1C=C')).toEqual([5]);
    expect(roots('c:c', 'c1ccccc1C=C')).toHaveLength(6);
    expect(roots('C=C', 'c1ccccc1C=C')).toEqual([6, 7]);
    expect(roots('C~*', 'C->[Fe]')).toEqual([0]); // a dative bond matches only ~
    expect(roots('C-*', 'C->[Fe]')).toEqual([]);
    expect(roots('[#6]-,:;!@[#6]', 'c1ccccc1-c1ccccc1')).toEqual([5, 6]);
  });

  it('applies ! > & (and implicit and) > , > ; precedence', () => {
    // [N&!H0&v3,O&H1] : NH2 / NH and OH, not the tertiary N
    expect(roots('[N&!H0&v3,O&H1]', 'CN(C)CCNCO')).toEqual([5, 7]);
    expect(roots('[N!H0v3,OH]', 'CN(C)CCNCO')).toEqual([5, 7]);
    expect(roots('[C,N;H0]', 'CN(C)C(C)(C)C')).toEqual([1, 3]);
  });

  it('matches recursive $(...) independently and branches with distinct atoms', () => {
    // carbonyl carbon bonded to N: the amide C only
    expect(roots('[$(C(=O)N)]', 'CC(=O)NCC(=O)O')).toEqual([1]);
    expect(roots('[C;!$(C=O)]', 'CC(=O)O')).toEqual([0]);
    // three distinct F: CF3 yes, CHF2 no
    expect(roots('C(F)(F)F', 'FC(F)(F)CC(F)F')).toEqual([1]);
    expect(countEmbeddings(compileSmarts('C(F)(F)F'), graph('FC(F)(F)C'), 100)).toBe(6);
  });

  it('makes implicit hydrogens atoms with expandHydrogens, as RDKit AddHs does', () => {
    // CO: C0, O1, then hydrogens 2,3,4 on C and 5 on O
    expect(roots('[#1]', 'CO', true)).toEqual([2, 3, 4, 5]);
    expect(roots('[#1]O', 'CO', true)).toEqual([5]);
    expect(roots('[A;!#1]', 'CO', true)).toEqual([0, 1]);
    expect(roots('[A]', 'CO', true)).toHaveLength(6); // A includes hydrogen atoms
    expect(roots('[CD4]', 'CO', true)).toEqual([0]); // D counts them as neighbours
    expect(roots('[#1]', 'CO')).toEqual([]); // without the layout there are none
  });

  it('ring closures add a bond between the two atoms', () => {
    expect(roots('C1CC1', 'C1CC1C')).toEqual([0, 1, 2]);
    expect(roots('C1CCC1', 'C1CC1C')).toEqual([]);
  });

  it('pre-filters patterns by the element of their first atom', () => {
    expect(rootMayMatch(compileSmarts('[CH3]C'), 6, 0)).toBe(true);
    expect(rootMayMatch(compileSmarts('[CH3]C'), 6, 1)).toBe(false);
    expect(rootMayMatch(compileSmarts('[!#1;A,a]'), 1, 0)).toBe(false);
    expect(rootMayMatch(compileSmarts('[N,O;H1]'), 7, 0)).toBe(true);
    expect(rootMayMatch(compileSmarts('[+;#3,#11]'), 11, 0)).toBe(true);
  });

  it('rejects SMARTS outside the supported subset', () => {
    expect(() => compileSmarts('[C@H]')).toThrow();
    expect(() => compileSmarts('[13C]')).toThrow();
    expect(() => compileSmarts('C.C')).toThrow();
    expect(() => compileSmarts('C(C')).toThrow();
  });
});
