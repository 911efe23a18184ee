// Element counts read from SMILES text (the screen before RDKit parses a synthon) against the
// atoms RDKit parses, on every synthon of the bundled spaces and some bracket-atom cases.
import { beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { getRDKit, type RDKitModule } from '../../../engine/chem/rdkit.ts';
import {
  mayContain,
  mayFitIn,
  skeletonNeeds,
  smilesElementCounts,
  zCounts,
} from '../../../engine/synthons/element-counts.ts';

const SOURCES = new URL('../../../catalogs/spaces/sources/', import.meta.url).pathname;
let rd: RDKitModule;
beforeAll(async () => {
  rd = await getRDKit();
});

/** RDKit's heavy-atom and dummy counts by atomic number. */
function rdkitCounts(smiles: string): Map<number, number> {
  const m = rd.get_mol(smiles)!;
  const doc = JSON.parse(m.get_json()) as {
    defaults: { atom: { z: number } };
    molecules: Array<{ atoms: Array<{ z?: number }> }>;
  };
  m.delete();
  const out = new Map<number, number>();
  for (const a of doc.molecules[0].atoms) {
    const z = a.z ?? doc.defaults.atom.z;
    if (z !== 1) out.set(z, (out.get(z) ?? 0) + 1);
  }
  return out;
}

describe('smilesElementCounts', () => {
  it('counts as RDKit parses, for every synthon of the bundled text spaces and bracket atoms', () => {
    const smiles = [
      '[NH2+]=C(N)c1ccc([nH]1)[Se]C',
      'Cl[C@@H](Br)C[N+](=O)[O-]',
      '[1*]c1ccc([2*])[se]1',
      '[13CH3]C([2H])([2H])O[Na]',
      'OB(O)c1ccc(Cl)cc1I',
      '[*:1]CC[Sn](C)(C)C',
    ];
    for (const f of ['idorsia_toy_space_a.txt', 'amide_space.txt', 'triazole_space.txt', 'urea_space.txt'])
      for (const line of readFileSync(SOURCES + f, 'utf8')
        .split('\n')
        .slice(1))
        if (line.trim()) smiles.push(line.split(/\s+/)[0]);
    expect(smiles.length).toBeGreaterThan(300);
    for (const s of smiles) expect(smilesElementCounts(s), s).toEqual(rdkitCounts(s));
  });

  it('rules out a synthon only when it lacks atoms the fragment names', () => {
    const needs = skeletonNeeds('[#9]~[#6](~[#9])~[#9]');
    expect(needs).toEqual(
      new Map([
        [9, 3],
        [6, 1],
      ]),
    );
    expect(mayContain(smilesElementCounts('FC(F)(F)c1ccccc1[1*]'), needs)).toBe(true);
    expect(mayContain(smilesElementCounts('FC(F)c1ccccc1[1*]'), needs)).toBe(false);
    expect(mayContain(undefined, needs)).toBe(true);
    expect(mayContain(smilesElementCounts('CC'), skeletonNeeds('[#1]~[#6]'))).toBe(true);
  });

  it('superstructure: rules out a synthon only when the query lacks atoms of its elements', () => {
    const query = zCounts([6, 6, 6, 8, 7, 7]); // C3 N2 O1
    expect(query).toEqual(
      new Map([
        [6, 3],
        [8, 1],
        [7, 2],
      ]),
    );
    // Connectors (z 0) and hydrogens map to any query atom and are not counted.
    expect(mayFitIn(smilesElementCounts('[1*]C(=O)N[2*]'), query)).toBe(true);
    expect(mayFitIn(smilesElementCounts('[1*]CC([2H])C'), query)).toBe(true);
    expect(mayFitIn(smilesElementCounts('[1*]C(=O)CO'), query)).toBe(false);
    expect(mayFitIn(smilesElementCounts('[1*]CCCC'), query)).toBe(false);
    expect(mayFitIn(smilesElementCounts('[1*]Cl'), query)).toBe(false);
    expect(mayFitIn(undefined, query)).toBe(true);
  });
});
