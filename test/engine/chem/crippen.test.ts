import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { CRIPPEN_LABELS, crippen, crippenTypeCounts } from '../../../engine/chem/crippen.ts';
import type { MolGraph } from '../../../engine/chem/graph.ts';
import { getRDKit, type RDKitModule } from '../../../engine/chem/rdkit.ts';
import { graphOf } from '../../support/mol-graph.ts';

// Python RDKit values: models/crippen_lipinski_reference.py writes this fixture.
interface RefMolecule {
  smiles: string;
  logp: number;
  mr: number;
  types: Record<string, number>;
  capped: boolean;
}
const fixture = JSON.parse(
  readFileSync(new URL('../../fixtures/crippen-lipinski-reference.json', import.meta.url), 'utf8'),
) as {
  rdkit_version: string;
  labels: string[];
  molecules: RefMolecule[];
};

let rd: RDKitModule;
beforeAll(async () => {
  rd = await getRDKit();
});

const graph = (smiles: string): MolGraph => graphOf(rd, smiles);

function typeCounts(smiles: string): Record<string, number> {
  const out = new Float32Array(CRIPPEN_LABELS.length + 3).fill(-1);
  crippenTypeCounts(graph(smiles), out, 3);
  expect(Array.from(out.subarray(0, 3))).toEqual([-1, -1, -1]);
  return Object.fromEntries(CRIPPEN_LABELS.map((l, i) => [l, out[3 + i]]).filter(([, c]) => c !== 0));
}

describe('crippen equals Python Crippen.MolLogP / MolMR', () => {
  it('uses the RDKit version and the type labels of the fixture', () => {
    expect(rd.version()).toBe(fixture.rdkit_version);
    expect(CRIPPEN_LABELS).toEqual(fixture.labels);
    expect(CRIPPEN_LABELS.length).toBe(72);
  });

  it('gives the same logP and MR as Python (bit for bit) for every fixture molecule', () => {
    const mismatches: string[] = [];
    for (const m of fixture.molecules) {
      const c = crippen(graph(m.smiles));
      if (m.capped) {
        if (c !== null) mismatches.push(`${m.smiles}: expected null`);
      } else if (c === null || c.logp !== m.logp || c.mr !== m.mr) {
        mismatches.push(`${m.smiles}: ${c?.logp} ${c?.mr} != ${m.logp} ${m.mr}`);
      }
    }
    expect(mismatches).toEqual([]);
    expect(fixture.molecules.length).toBeGreaterThan(1400);
  });

  it('gives the same type counts as models/crippen_types.py for every fixture molecule', () => {
    const mismatches: string[] = [];
    for (const m of fixture.molecules) {
      const got = typeCounts(m.smiles);
      if (JSON.stringify(got) !== JSON.stringify(m.types))
        mismatches.push(`${m.smiles}: ${JSON.stringify(got)} != ${JSON.stringify(m.types)}`);
    }
    expect(mismatches).toEqual([]);
  });

  it('covers every Crippen type label in the fixture', () => {
    const seen = new Set(fixture.molecules.flatMap((m) => Object.keys(m.types)));
    expect(CRIPPEN_LABELS.filter((l) => !seen.has(l))).toEqual([]);
  });

  it('types implicit hydrogens like the explicit atoms of AddHs, graph atoms first', () => {
    // phenol: 6 aromatic C, O; then 5 aromatic H (H1) and the hydroxyl H (H2)
    const c = crippen(graph('Oc1ccccc1'))!;
    const label = (i: number): string => CRIPPEN_LABELS[c.types[i]];
    expect(c.types.length).toBe(13);
    expect([0, 1, 2].map(label)).toEqual(['O2', 'C23', 'C18']);
    expect(label(7)).toBe('H2');
    expect([8, 9, 10, 11, 12].map(label)).toEqual(['H1', 'H1', 'H1', 'H1', 'H1']);
    expect(typeCounts('C')).toEqual({ C1: 1, H1: 4 });
  });

  it("uses RDKit's compiled-in table, where an H on aromatic n is H3 (Data/Crippen.txt would say H2)", () => {
    expect(typeCounts('c1cc[nH]c1')).toEqual({ C18: 4, H1: 4, H3: 1, N11: 1 });
  });

  it('treats hydrogen atoms kept in the graph ([2H]) like implicit hydrogens', () => {
    const d = crippen(graph('[2H]C([2H])([2H])Cl'))!;
    const h = crippen(graph('CCl'))!;
    expect(d.logp).toBeCloseTo(h.logp, 12);
    expect(typeCounts('[2H]C([2H])([2H])Cl')).toEqual(typeCounts('CCl'));
  });

  it('leaves atoms no row matches untyped with no contribution', () => {
    const c = crippen(graph('[He]'))!;
    expect(c).toEqual({ logp: 0, mr: 0, types: Uint8Array.of(255) });
    expect(typeCounts('[He]')).toEqual({});
  });

  it("returns null where RDKit's 1000-match cap changes its result, but still counts types", () => {
    const g = graph('C'.repeat(500)); // 1002 C-H hydrogens: more than 1000 matches of row H1
    expect(crippen(g)).toBeNull();
    expect(typeCounts('C'.repeat(500))).toEqual({ C1: 500, H1: 1002 });
    expect(crippen(graph('C'.repeat(400)))).not.toBeNull();
  });
});
