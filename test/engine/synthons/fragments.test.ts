// The query split of space substructure search: skeleton SMARTS written from a graph read back by
// RDKit as the same graph, elements taken only where the query pins them, and splits that respect
// the reaction's connector labels.
import { beforeAll, describe, expect, it } from 'vitest';
import { getRDKit, type RDKitModule } from '../../../engine/chem/rdkit.ts';
import { querySkeleton, skeletonSmarts, splitQuery } from '../../../engine/synthons/fragments.ts';
import type { ReactionInfo } from '../../../engine/synthons/format.ts';

let rd: RDKitModule;
beforeAll(async () => {
  rd = await getRDKit();
});

const reaction = (connectors: number[][]): ReactionInfo => ({
  id: 'r',
  ringForming: false,
  products: 1,
  slots: connectors.map((c, i) => ({ slot: i, rawSlot: i, synthons: 1, connectors: c, file: '' })),
});

describe('querySkeleton and skeletonSmarts', () => {
  it('round-trips ring systems, branches and fragments through RDKit', () => {
    for (const smiles of [
      'c1ccc2ncccc2c1',
      'C1CC2CCC1CC2',
      'CC(C)(C)O.N',
      'C12C3C4C1C5C2C3C45',
      'CCCCCCCCCCC1CC1',
    ]) {
      const mol = rd.get_mol(smiles)!;
      const sk = querySkeleton(mol);
      const back = rd.get_qmol(skeletonSmarts(sk.z, sk.bonds))!;
      expect(back.get_num_atoms(), smiles).toBe(mol.get_num_atoms());
      expect(JSON.parse(back.get_json()).molecules[0].bonds.length, smiles).toBe(sk.bonds.length);
      // The skeleton matches the molecule it came from (elements and connectivity only).
      expect(JSON.parse(mol.get_substruct_match(back)).atoms, smiles).toHaveLength(mol.get_num_atoms());
      back.delete();
      mol.delete();
    }
  });

  it('keeps an element only where the SMARTS pins it', () => {
    const sk = querySkeleton(rd.get_qmol('[C,N]c[!#6][#7;R]*[O&H1]')!);
    expect(sk.z).toEqual([null, 6, null, 7, null, 8]);
  });
});

describe('splitQuery', () => {
  it('cuts at most as many bonds as the slots share labels, never inside a component', () => {
    const q = querySkeleton(rd.get_mol('NC(=O)c1ccccc1')!);
    const splits = splitQuery(q, reaction([[1], [1]]))!;
    // No cut: the whole query in either slot; one cut: each of the 3 acyclic bonds, either way round.
    expect(splits.filter((s) => s.some((f) => f === null))).toHaveLength(2);
    expect(splits.filter((s) => s.every((f) => f !== null))).toHaveLength(6);
    for (const s of splits.filter((x) => x.every((f) => f !== null)))
      for (const f of s) expect(f!.match(/\[#0\]/g)).toHaveLength(1);
  });

  it('puts no cut between slots that share no label', () => {
    const q = querySkeleton(rd.get_mol('CCO')!);
    const splits = splitQuery(q, reaction([[1], [1, 2], [2]]))!;
    for (const s of splits) expect(s[0] !== null && s[2] !== null && s[1] === null).toBe(false);
  });

  it('gives up (undefined) beyond its limits so the caller scans instead', () => {
    const q = querySkeleton(rd.get_mol('CCCCCCCCCCCCCCCCCCCC')!);
    expect(
      splitQuery(
        q,
        reaction([
          [1, 2],
          [1, 3],
          [2, 3],
        ]),
        { maxCutSets: 100, maxSplits: 100 },
      ),
    ).toBeUndefined();
  });
});
