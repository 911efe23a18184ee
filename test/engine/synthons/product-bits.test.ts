// The two facts the exact similarity search rests on, checked on real products against RDKit:
// every synthon's guaranteed bits are in every product made with it, and the TypeScript graph zip
// gives RDKit's product fingerprint wherever it is used.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getRDKit, type RDKitModule } from '../../../engine/chem/rdkit.ts';
import { FP_BYTES, popcount } from '../../../engine/chem/fingerprint.ts';
import { buildSpace } from '../../../engine/synthons/build-space.ts';
import { assembleProduct } from '../../../engine/synthons/assemble.ts';
import { tupleFingerprint } from '../../../engine/synthons/graph-zip.ts';
import { openSpace, reactionTuples, tupleSmiles, type OpenSpace } from '../../../engine/synthons/space.ts';

const SOURCES = new URL('../../../catalogs/spaces/sources/', import.meta.url).pathname;
let root: string;
let rd: RDKitModule;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'space-bits-'));
  rd = await getRDKit();
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function space(name: string, file = `${name}.txt`): Promise<OpenSpace> {
  const out = join(root, name);
  await buildSpace({ input: join(SOURCES, file), out, id: name });
  return openSpace(out);
}

/** Every product of small spaces, every 7th of larger ones. */
function check(sp: OpenSpace, stride: number): { products: number; graphPath: number } {
  let products = 0;
  let graphPath = 0;
  let k = 0;
  for (let r = 0; r < sp.reactions.length; r++) {
    const reaction = sp.reactions[r];
    for (const t of reactionTuples(sp, r)) {
      if (k++ % stride !== 0) continue;
      const p = assembleProduct(rd, tupleSmiles(sp, t), true);
      expect(p?.fp, `${reaction.info.id} ${t.synthons}`).toBeDefined();
      products++;
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
  return { products, graphPath };
}

describe('product bits', () => {
  for (const name of ['amide_space', 'urea_space', 'triazole_space', 'doebner_miller_space'])
    it(`${name}: guaranteed bits kept, graph-zip fingerprints equal RDKit's`, async () => {
      const res = check(await space(name), 1);
      expect(res.products).toBeGreaterThan(0);
      if (name === 'amide_space' || name === 'urea_space') expect(res.graphPath).toBe(res.products);
      else expect(res.graphPath).toBe(0); // ring-closing: RDKit only
    });

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
