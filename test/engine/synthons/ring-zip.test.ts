// Ring cores (ring-core.ts, ring-zip.ts): the product fingerprints of ring-closing and
// double-bond joins, computed in TypeScript from RDKit's perception of the zipped cores, equal
// RDKit's own assembly of every tuple (assemble.ts: molzip, canonical SMILES, parse).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { getRDKit, type RDKitModule } from '../../../engine/chem/rdkit.ts';
import { graphFromRDKitJson } from '../../../engine/chem/graph.ts';
import { buildSpace } from '../../../engine/synthons/build-space.ts';
import { assembleProduct } from '../../../engine/synthons/assemble.ts';
import { ringCoreBytes } from '../../../engine/synthons/format.ts';
import { synthonGraph, tupleFingerprint } from '../../../engine/synthons/graph-zip.ts';
import {
  decodeRingCore,
  ringCore,
  writeSmiles,
  atomText,
  bondText,
} from '../../../engine/synthons/ring-core.ts';
import { clearRingPairs, ringZipFingerprint, ringZipStats } from '../../../engine/synthons/ring-zip.ts';
import { unstableAtoms } from '../../../engine/synthons/synthon-chem.ts';
import { openSpace, reactionTuples, tupleSmiles, type OpenSpace } from '../../../engine/synthons/space.ts';
import { writeAutogrow4Sample } from './ag4-sample.ts';

const SOURCES = new URL('../../../catalogs/spaces/sources/', import.meta.url).pathname;
let root: string;
let rd: RDKitModule;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'ring-zip-'));
  rd = await getRDKit();
});
afterAll(async () => {
  clearRingPairs();
  await rm(root, { recursive: true, force: true });
});

async function space(name: string, file = `${name}.txt`): Promise<OpenSpace> {
  const out = join(root, name);
  await buildSpace({ input: resolve(SOURCES, file), out, id: name });
  return openSpace(out);
}

const resetStats = () => Object.assign(ringZipStats, { hits: 0, misses: 0, mismatches: 0, refused: 0 });

/**
 * Every tuple the graph zip cannot take, twice: the first call may learn its pair of cores, the
 * second takes the TypeScript path with what was learnt. Both must equal RDKit's assembly, and an
 * invalid assembly must give no fingerprint.
 */
function check(sp: OpenSpace): { compared: number; invalid: number } {
  let compared = 0;
  let invalid = 0;
  sp.reactions.forEach((reaction, r) => {
    const ringForming = reaction.info.ringForming;
    for (const t of reactionTuples(sp, r)) {
      if (tupleFingerprint(rd, reaction.slots, t.synthons, ringForming)) continue;
      const want = assembleProduct(rd, tupleSmiles(sp, t), true);
      for (let pass = 0; pass < 2; pass++) {
        const got = ringZipFingerprint(rd, reaction.slots, t.synthons, ringForming);
        if (!want?.fp) {
          expect(got ?? undefined, `${reaction.info.id} ${t.synthons}: an invalid assembly`).toBeUndefined();
          continue;
        }
        expect(got && [...got], `${want.smiles} (pass ${pass})`).toEqual([...want.fp]);
        compared++;
      }
      if (!want?.fp) invalid++;
    }
  });
  return { compared, invalid };
}

describe('ring-closing product fingerprints from ring cores', () => {
  for (const name of ['triazole_space', 'doebner_miller_space'])
    it(`${name}: every product's fingerprint equals RDKit's, learnt and reused`, async () => {
      clearRingPairs();
      resetStats();
      const res = check(await space(name));
      expect(res.compared).toBeGreaterThan(10);
      expect(ringZipStats.mismatches).toBe(0);
      // The second pass of every tuple took the TypeScript path.
      expect(ringZipStats.hits).toBeGreaterThanOrEqual(res.compared / 2);
    });

  it(
    'AutoGrow4 sample, all 21 ring-closing reactions: equal to RDKit, cores shared across synthons',
    { timeout: 600_000 },
    async () => {
      const file = join(root, 'ag4.txt');
      await writeAutogrow4Sample(file, { smallest: 2, spread: 6 });
      const sp = await space('ag4', file);
      clearRingPairs();
      resetStats();
      const res = check(sp);
      expect(res.compared).toBeGreaterThan(2000);
      expect(res.invalid).toBeGreaterThan(0);
      expect(ringZipStats.mismatches).toBe(0);
      expect(ringZipStats.refused).toBe(0);
      // Distinct synthons with one core: more tuples took the TypeScript path than pairs were learnt.
      expect(ringZipStats.hits).toBeGreaterThan(2 * ringZipStats.misses);
      // The build stored a core for every synthon of every reaction the graph zip cannot take
      // (ring-closing ones and the double-bond joins), so none is made at query time.
      let needing = 0;
      for (const reaction of sp.reactions) {
        if (
          tupleFingerprint(
            rd,
            reaction.slots,
            reaction.slots.map(() => 0),
            reaction.info.ringForming,
          )
        )
          continue;
        for (const slot of reaction.slots)
          for (let i = 0; i < slot.synthonIds.length; i++) {
            needing++;
            expect(ringCoreBytes(slot, i), `${reaction.info.id} ${slot.smiles[i]}`).toBeDefined();
          }
      }
      expect(needing).toBeGreaterThan(300);
    },
  );

  it('the build stores each ring-closing synthon core, equal to the one made at query time', async () => {
    const sp = await space('doebner_miller_space');
    let n = 0;
    for (const reaction of sp.reactions)
      for (const slot of reaction.slots)
        for (let i = 0; i < slot.synthonIds.length; i++) {
          const stored = decodeRingCore(ringCoreBytes(slot, i)!)!;
          const g = synthonGraph(rd, slot, i)!.g;
          const made = ringCore(rd, g, unstableAtoms(g, true));
          expect(stored.core).toEqual(made);
          expect(stored.core.key).toHaveLength(8);
          // The stored graph is RDKit's parse of the synthon, ring membership included.
          for (const f of [
            'z',
            'charge',
            'hs',
            'isotope',
            'aromatic',
            'bondA',
            'bondB',
            'order',
            'bondAromatic',
          ] as const)
            expect(Array.from(stored.g[f]), f).toEqual(Array.from(g[f]));
          expect(Array.from(stored.g.atomRings)).toEqual(Array.from(g.atomRings, (v) => (v > 0 ? 1 : 0)));
          n++;
        }
    expect(n).toBe(7);
  });
});

describe('ring-core helpers', () => {
  const molecules = [
    'c1ccc2[nH]ccc2c1',
    'O=C1C=CC(=O)C=C1',
    'C1CC2CCC1CC2',
    'CC(=O)[O-].[NH4+]',
    'C#CC1=CN=CC1',
  ];

  it('writeSmiles writes a graph RDKit reads back as the same molecule, atoms in written order', () => {
    for (const smiles of molecules) {
      const mol = rd.get_mol(smiles)!;
      const g = graphFromRDKitJson(mol.get_json());
      const texts = Array.from({ length: g.n }, (_, i) =>
        atomText(g.z[i], g.isotope[i], g.aromatic[i] === 1, g.hs[i], g.charge[i]),
      );
      const bonds = Array.from(
        { length: g.nb },
        (_, b) => [g.bondA[b], g.bondB[b], bondText(g.order[b], g.bondAromatic[b] === 1)!] as const,
      );
      const { smiles: out, order } = writeSmiles(texts, bonds);
      const back = rd.get_mol(out)!;
      expect(back.get_smiles(), out).toBe(mol.get_smiles());
      const h = graphFromRDKitJson(back.get_json());
      // Parsed atom i is written atom order[i].
      for (let i = 0; i < h.n; i++) expect(h.z[i]).toBe(g.z[order[i]]);
      back.delete();
      mol.delete();
    }
  });
});
