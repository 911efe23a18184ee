// The TypeScript zip of synthon graphs (graph-zip.ts) against RDKit's molzip and fingerprint, and
// the tuples it must refuse (two paired connectors bonded to each other). Its label counts live in module scratch, so a refused tuple must leave nothing behind.
import { beforeAll, describe, expect, it } from 'vitest';
import { getRDKit, type RDKitModule } from '../../../engine/chem/rdkit.ts';
import { graphFromRDKitJson, markRingAtoms, type MolGraph } from '../../../engine/chem/graph.ts';
import { assembleProduct } from '../../../engine/synthons/assemble.ts';
import { graphFingerprint, zipGraphs } from '../../../engine/synthons/graph-zip.ts';

let rd: RDKitModule;
beforeAll(async () => {
  rd = await getRDKit();
});

function graph(smiles: string): MolGraph {
  const m = rd.get_mol(smiles);
  if (!m) throw new Error(smiles);
  const g = graphFromRDKitJson(m.get_json());
  m.delete();
  markRingAtoms(g);
  return g;
}

describe('zipGraphs', () => {
  it("joins paired connectors into RDKit's product: same fingerprint as molzip's, before and after refusals", () => {
    const tuples = [
      ['CC(=O)N[1*]', '[1*]c1ccc(C(=O)O)cc1'],
      ['[1*]OCC[2*]', '[1*]c1ccccc1', '[2*]N1CCOCC1'],
    ];
    const check = () => {
      for (const t of tuples) {
        const g = zipGraphs(t.map(graph));
        expect(g, t.join('.')).toBeDefined();
        const want = assembleProduct(rd, t, true)!;
        expect([...graphFingerprint(g!)], want.smiles).toEqual([...want.fp!]);
      }
    };
    check();
    // Two paired connectors bonded to each other: no product.
    expect(zipGraphs(['[1*][2*]', 'C[1*]', 'N[2*]'].map(graph))).toBeUndefined();
    check();
  });

  it('keeps a connector that is not paired (one end, or three) as a dummy atom', () => {
    const g = zipGraphs(['CC[1*]', 'NC[2*]'].map(graph))!;
    expect(g.n).toBe(6);
    expect([...g.z].filter((z) => z === 0)).toHaveLength(2);
    const three = zipGraphs(['C[1*]', 'N[1*]', 'O[1*]'].map(graph))!;
    expect([...three.z].filter((z) => z === 0)).toHaveLength(3);
    expect(three.nb).toBe(3);
  });
});
