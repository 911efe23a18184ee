import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { getRDKit } from '../../../engine/chem/index.ts';
import {
  createFilterContext,
  evaluateFilters,
  type FilterContext,
} from '../../../engine/filters/evaluate.ts';

// Verdicts of Python RDKit 2026.9.1 (MurckoScaffold, CalcMolFormula, MolToSmiles without
// stereo), made by scripts/reference/make_medchem_filters_fixture.py.
interface Fixture {
  rdkit_version: string;
  molecules: { smiles: string; no_rare_atoms: boolean }[];
  queries: { smiles: string; scaffold_hop: boolean[]; regioisomer: boolean[] }[];
}
const ref = JSON.parse(
  readFileSync(new URL('../../fixtures/medchem-filters-reference.json', import.meta.url), 'utf8'),
) as Fixture;
const smiles = ref.molecules.map((m) => m.smiles);

let ctx: FilterContext;
beforeAll(async () => {
  ctx = createFilterContext(await getRDKit());
});

/** The molecules whose verdict differs from RDKit's, by SMILES (empty when all agree). */
function disagreements(filter: string, expected: boolean[], query?: string): string[] {
  const { pass } = evaluateFilters(ctx, { smiles, filters: [filter], query });
  return smiles.filter((_, i) => Boolean(pass[i]) !== expected[i]);
}

describe('the medicinal-chemistry filters agree with Python RDKit', () => {
  it(`No rare atoms (${ref.molecules.length} molecules)`, () => {
    expect(ref.molecules.some((m) => !m.no_rare_atoms)).toBe(true);
    expect(
      disagreements(
        'No rare atoms',
        ref.molecules.map((m) => m.no_rare_atoms),
      ),
    ).toEqual([]);
  });

  for (const q of ref.queries) {
    it(`Murcko scaffold hop and Regioisomers for ${q.smiles}`, () => {
      expect(disagreements('Murcko scaffold hop', q.scaffold_hop, q.smiles)).toEqual([]);
      expect(disagreements('Regioisomers', q.regioisomer, q.smiles)).toEqual([]);
    });
  }

  it('finds the positional isomers of o-cresol and only them', () => {
    const q = ref.queries.find((x) => x.smiles === 'Cc1ccccc1O')!;
    const found = smiles.filter((_, i) => q.regioisomer[i]);
    expect(found).toEqual(expect.arrayContaining(['Cc1cccc(O)c1', 'Cc1ccc(O)cc1']));
    expect(found).not.toContain('Cc1ccccc1O');
  });
});
