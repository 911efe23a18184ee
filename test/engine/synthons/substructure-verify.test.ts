// The fast verification path of the space substructure search (zipped synthon molecules, hits
// reported in the indices of the product RDKit parses) against the exact path (assembly through
// SMILES, as brute force over the enumeration does), tuple by tuple on the Idorsia toy space; and
// the SMILES bond numbering against RDKit's parser.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getRDKit, type RDKitModule } from '../../../engine/chem/rdkit.ts';
import { buildSpace } from '../../../engine/synthons/build-space.ts';
import { openSpace, type OpenSpace, type ProductTuple } from '../../../engine/synthons/space.ts';
import { smilesBonds } from '../../../engine/synthons/smiles-bonds.ts';
import { createVerifier, synthonMols, verifyExact } from '../../../engine/synthons/substructure-verify.ts';

const SOURCES = new URL('../../../catalogs/spaces/sources/', import.meta.url).pathname;
let root: string;
let rd: RDKitModule;
let space: OpenSpace;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'space-sss-verify-'));
  rd = await getRDKit();
  const id = 'idorsia_toy_space_a';
  await buildSpace({ input: join(SOURCES, `${id}.txt`), out: join(root, id), id });
  space = await openSpace(join(root, id));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** RDKit's bonds of a parsed SMILES as atom pairs, in its bond order. */
function rdkitBonds(smiles: string): Array<[number, number]> {
  const m = rd.get_mol(smiles)!;
  const doc = JSON.parse(m.get_json()) as {
    molecules: Array<{ bonds?: Array<{ atoms: [number, number] }> }>;
  };
  m.delete();
  return (doc.molecules[0].bonds ?? []).map((b) => b.atoms);
}

/** Tuples spread over every reaction (a fixed stride through each slot). */
function sampleTuples(perReaction: number): ProductTuple[] {
  const out: ProductTuple[] = [];
  space.reactions.forEach((r, reaction) => {
    const sizes = r.slots.map((s) => s.smiles.length);
    for (let k = 0; k < perReaction; k++)
      out.push({ reaction, synthons: sizes.map((n, s) => (k * (7 + 13 * s) + s) % n) });
  });
  // Walked in index order, as the search does (the verifier reuses the zip of all but the last slot).
  return out.sort((a, b) => a.reaction - b.reaction || a.synthons.join().localeCompare(b.synthons.join()));
}

describe('smilesBonds (RDKit SMILES parser bond numbering)', () => {
  it('numbers bonds as RDKit parses them: chain bonds first, ring closures by number', () => {
    for (const smiles of [
      'CCO',
      'c1ccccc1',
      'C1CC2CCC1CC2',
      'c1ccc2c(c1)CCc1ccccc1-2',
      'O=C(NC1CCOCC1)c1ccccc1',
      'C1CC1C1CC1.C2CCC2',
      'Cc1cc2n(n1)CCCN(c1ccc(C(=O)NN)c(C(C)N(C)C(=O)OC(C)(C)C)c1)C2',
      'C%10CC%10C1CC1',
      'C[C@H](N)C(=O)O[Na]',
      'ClC(Br)=C/C=C\\[N+](=O)[O-]',
    ]) {
      const want = rdkitBonds(smiles);
      const got = smilesBonds(smiles)!;
      expect(got.index.size, smiles).toBe(want.length);
      want.forEach(([a, b], k) =>
        expect(got.index.get(a < b ? a * 65536 + b : b * 65536 + a), smiles).toBe(k),
      );
    }
  });
});

describe('fast verification against the exact path', () => {
  const tuples = () => sampleTuples(40);

  for (const query of ['[#6]', 'C(=O)N', 'c1ccncc1', 'N1CCOCC1', 'FC(F)F'])
    it(`${query}: the same decision and product for every tuple; hits are matches of that product`, () => {
      const q = rd.get_qmol(query)!;
      const mols = synthonMols(rd, space);
      const verifier = createVerifier(rd, space, q, 'substructure', mols);
      const qBonds = rdkitBondsOfQuery(q);
      let hits = 0;
      try {
        for (const t of tuples()) {
          const fast = verifier.verify(t);
          const exact = verifyExact(rd, space, q, 'substructure', t);
          expect(fast === null, `${query} ${t.reaction}/${t.synthons}`).toBe(exact === null);
          expect(fast === undefined).toBe(exact === undefined);
          if (!fast || !exact) continue;
          hits++;
          expect(fast.smiles).toBe(exact.smiles);
          expect(fast.productId).toBe(exact.productId);
          // The match may be another embedding than the exact path's first one, but it must be a
          // match in the returned product (its atoms in SMILES order), bonds included.
          const p = rd.get_mol(fast.smiles)!;
          const matches = JSON.parse(p.get_substruct_matches(q)) as Array<{ atoms: number[] }>;
          const sets = matches.map((m) => [...m.atoms].sort((a, b) => a - b).join());
          expect(sets).toContain([...fast.matchedAtoms].sort((a, b) => a - b).join());
          const pb = rdkitBondsOfMol(p);
          p.delete();
          expect(fast.matchedBonds.length).toBe(exact.matchedBonds.length);
          fast.matchedBonds.forEach((b, k) => {
            const [qa, qb] = qBonds[k];
            expect([...pb[b]].sort()).toEqual([fast.matchedAtoms[qa], fast.matchedAtoms[qb]].sort());
          });
        }
        // The fast path must really have decided (this query has no ring primitive).
        expect(verifier.fast).toBeGreaterThan(tuples().length / 2);
        if (query === '[#6]') expect(hits).toBe(tuples().length);
      } finally {
        verifier.free();
        mols.free();
        q.delete();
      }
    });

  it('a query with ring primitives is verified on the exact path only', () => {
    const q = rd.get_qmol('[#6]-[#7;R]')!;
    const mols = synthonMols(rd, space);
    const verifier = createVerifier(rd, space, q, 'substructure', mols);
    try {
      for (const t of sampleTuples(5))
        expect(JSON.stringify(verifier.verify(t))).toBe(
          JSON.stringify(verifyExact(rd, space, q, 'substructure', t)),
        );
      expect(verifier.fast).toBe(0);
    } finally {
      verifier.free();
      mols.free();
      q.delete();
    }
  });
});

function rdkitBondsOfMol(m: { get_json(): string }): Array<[number, number]> {
  const doc = JSON.parse(m.get_json()) as {
    molecules: Array<{ bonds?: Array<{ atoms: [number, number] }> }>;
  };
  return (doc.molecules[0].bonds ?? []).map((b) => b.atoms);
}
const rdkitBondsOfQuery = rdkitBondsOfMol;
