/**
 * The two-route fixture space (two reactions make benzoyl-pyrrolidine) and, from RDKit's products
 * and Tanimotos (scripts/reference/make_two_routes_fixture.py), each molecule's best route score.
 */
import { readFile } from 'node:fs/promises';
import type { RDKitModule } from '../../../../engine/chem/rdkit.ts';

export const TWO_ROUTES = new URL('../../../fixtures/synthons/two_routes_space.txt', import.meta.url)
  .pathname;
const REF = new URL('../../../fixtures/synthons/two-routes-reference.json', import.meta.url);

/** The query, the tuple count, and the best score of each canonical product SMILES. */
export async function twoRoutesReference(
  rd: RDKitModule,
): Promise<{ query: string; tuples: number; best: Map<string, number> }> {
  const ref = JSON.parse(await readFile(REF, 'utf8')) as {
    query: string;
    tuples: Array<{ smiles: string; similarity: number }>;
  };
  const canon = (smi: string) => {
    const m = rd.get_mol(smi)!;
    const c = m.get_smiles();
    m.delete();
    return c;
  };
  const best = new Map<string, number>();
  for (const t of ref.tuples) {
    const c = canon(t.smiles);
    best.set(c, Math.max(best.get(c) ?? 0, t.similarity));
  }
  return { query: ref.query, tuples: ref.tuples.length, best };
}
