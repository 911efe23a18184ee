// The two facts the exact similarity search rests on, checked on real products against RDKit:
// every synthon's guaranteed bits are in every product made with it, and the TypeScript graph zip
// and the zip of kept synthon molecules (zip-fingerprint.ts) give RDKit's product fingerprint
// wherever they are used.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { getRDKit, type RDKitModule } from '../../../engine/chem/rdkit.ts';
import { FP_BYTES, popcount } from '../../../engine/chem/fingerprint.ts';
import { buildSpace } from '../../../engine/synthons/build-space.ts';
import { assembleProduct } from '../../../engine/synthons/assemble.ts';
import { tupleFingerprint } from '../../../engine/synthons/graph-zip.ts';
import {
  clearSynthonMols,
  keptSynthonMols,
  zipFingerprint,
} from '../../../engine/synthons/zip-fingerprint.ts';
import { writeAutogrow4Sample } from './ag4-sample.ts';
import { openSpace, reactionTuples, tupleSmiles, type OpenSpace } from '../../../engine/synthons/space.ts';

const SOURCES = new URL('../../../catalogs/spaces/sources/', import.meta.url).pathname;
let root: string;
let rd: RDKitModule;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'space-bits-'));
  rd = await getRDKit();
});
afterAll(async () => {
  clearSynthonMols();
  await rm(root, { recursive: true, force: true });
});

async function space(name: string, file = `${name}.txt`): Promise<OpenSpace> {
  const out = join(root, name);
  await buildSpace({ input: resolve(SOURCES, file), out, id: name });
  return openSpace(out);
}

/** Every product of small spaces, every 7th of larger ones. */
function check(
  sp: OpenSpace,
  stride: number,
  allowInvalid = false,
): { products: number; graphPath: number; zipPath: number; invalid: number } {
  let products = 0;
  let graphPath = 0;
  let zipPath = 0;
  let invalid = 0;
  let k = 0;
  for (let r = 0; r < sp.reactions.length; r++) {
    const reaction = sp.reactions[r];
    for (const t of reactionTuples(sp, r)) {
      if (k++ % stride !== 0) continue;
      const p = assembleProduct(rd, tupleSmiles(sp, t), true);
      const zipped = zipFingerprint(rd, reaction.slots, t.synthons);
      if (!p?.fp && allowInvalid) {
        // An invalid assembly never gets a fingerprint from the kept-molecule zip either.
        expect(zipped, `${reaction.info.id} ${t.synthons}`).toBeUndefined();
        invalid++;
        continue;
      }
      expect(p?.fp, `${reaction.info.id} ${t.synthons}`).toBeDefined();
      products++;
      if (zipped) {
        zipPath++;
        expect([...zipped], p!.smiles).toEqual([...p!.fp!]);
      }
      for (let s = 0; s < t.synthons.length; s++) {
        const g = reaction.slots[s].guaranteed.subarray(
          t.synthons[s] * FP_BYTES,
          (t.synthons[s] + 1) * FP_BYTES,
        );
        const missing = g.map((byte, i) => byte & ~p!.fp![i]);
        expect(popcount(missing), `${p!.smiles}: guaranteed bits of slot ${s} missing`).toBe(0);
      }
      const fast = tupleFingerprint(rd, reaction.slots, t.synthons, reaction.info.ringForming);
      if (fast) {
        graphPath++;
        expect([...fast], p!.smiles).toEqual([...p!.fp!]);
      }
    }
  }
  return { products, graphPath, zipPath, invalid };
}

describe('product bits', () => {
  for (const name of ['amide_space', 'urea_space', 'triazole_space', 'doebner_miller_space'])
    it(`${name}: guaranteed bits kept, graph-zip fingerprints equal RDKit's`, async () => {
      const res = check(await space(name), 1);
      expect(res.products).toBeGreaterThan(0);
      if (name === 'amide_space' || name === 'urea_space') expect(res.graphPath).toBe(res.products);
      else expect(res.graphPath).toBe(0); // ring-closing: RDKit only
      expect(res.zipPath).toBe(res.products);
    });

  it('kept synthon molecules stay bounded and are never freed under a tuple being zipped', async () => {
    clearSynthonMols();
    let n = 0;
    for (const sp of [await space('triazole_space'), await space('doebner_miller_space')])
      for (let r = 0; r < sp.reactions.length; r++)
        for (const t of reactionTuples(sp, r)) {
          const want = assembleProduct(rd, tupleSmiles(sp, t), true)!.fp!;
          // A cap of 3 clears the kept molecules before nearly every tuple.
          const got = zipFingerprint(rd, sp.reactions[r].slots, t.synthons, 3);
          expect(got && [...got], `${t.synthons}`).toEqual([...want]);
          expect(keptSynthonMols()).toBeLessThanOrEqual(3 + t.synthons.length);
          n++;
        }
    expect(n).toBeGreaterThan(10);
  });

  it(
    'AutoGrow4 sample, every reaction (21 ring-closing): the kept-molecule zip equals RDKit',
    { timeout: 600_000 },
    async () => {
      const file = join(root, 'ag4.txt');
      await writeAutogrow4Sample(file, { smallest: 2, spread: 6 });
      const sp = await space('ag4', file);
      const res = check(sp, 1, true);
      expect(sp.reactions.filter((r) => r.info.ringForming).length).toBeGreaterThan(15);
      expect(res.products).toBeGreaterThan(1000);
      expect(res.invalid).toBeGreaterThan(0);
      expect(res.zipPath / res.products).toBeGreaterThan(0.95);
    },
  );

  it(
    'idorsia toy space (every 7th product) and the Chemspace sample (every 997th)',
    { timeout: 600_000 },
    async () => {
      const a = check(await space('idorsia_toy_space_a'), 7);
      expect(a.products).toBeGreaterThan(4000);
      expect(a.graphPath).toBeGreaterThan(2000);
      const b = check(await space('Syntons_5567', 'Syntons_5567.csv'), 997);
      expect(b.products).toBeGreaterThan(900);
    },
  );
});
