// Product fingerprints composed from join bits (engine/synthons/join-bits.ts) against RDKit's Morgan
// fingerprint of the assembled product, bit for bit: tiny synthons (where RDKit drops redundant
// environments across the join), the RDKit amide test space, and synthons drawn from
// every joinable reaction of the AutoGrow4 × ZINC15 space. Products are checked in an order where
// most reuse cross bits learned from an earlier partner of the same join view.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getRDKit, type RDKitModule } from '../../../engine/chem/rdkit.ts';
import { buildSpace } from '../../../engine/synthons/build-space.ts';
import { assembleProduct } from '../../../engine/synthons/assemble.ts';
import { joinable, joinFingerprint, joinSide } from '../../../engine/synthons/join-bits.ts';
import { crossCodes, decodeJoinEnv } from '../../../engine/synthons/join-env.ts';
import { envFingerprint, slotJoinEnvs } from '../../../engine/synthons/join-walk.ts';
import { SYNTHON_HEADER, writeAutogrow4Sample } from './ag4-sample.ts';
import { openSpace, reactionTuples, tupleSmiles, type OpenSpace } from '../../../engine/synthons/space.ts';

const SOURCES = new URL('../../../catalogs/spaces/sources/', import.meta.url).pathname;
let root: string;
let rd: RDKitModule;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'join-bits-'));
  rd = await getRDKit();
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function build(name: string, input: string): Promise<OpenSpace> {
  const out = join(root, name);
  await buildSpace({ input, out, id: name });
  return openSpace(out);
}

/** Every product of every joinable reaction: composed bits equal RDKit's. */
function check(sp: OpenSpace): {
  products: number;
  composed: number;
  learned: number;
  superset: number;
  analytic: number;
} {
  let products = 0;
  let composed = 0;
  let learned = 0;
  let superset = 0;
  let analytic = 0;
  for (let r = 0; r < sp.reactions.length; r++) {
    const reaction = sp.reactions[r];
    if (!joinable(reaction.info)) continue;
    for (const t of reactionTuples(sp, r)) {
      const p = assembleProduct(rd, tupleSmiles(sp, t), true);
      const fp = joinFingerprint(rd, reaction.slots, t.synthons[0], t.synthons[1]);
      if (!p?.fp) continue;
      products++;
      if (!fp) continue;
      composed++;
      const what = `${reaction.info.id} ${tupleSmiles(sp, t).join(' + ')} -> ${p.smiles}`;
      expect([...fp], what).toEqual([...p.fp]);
      // The build's join environments give every cross bit (a superset: RDKit may drop some).
      const [ex, ey] = t.synthons.map((i, s) => decodeJoinEnv(reaction.slots[s].joinEnv![i]));
      expect(ex && ey, what).toBeTruthy();
      const x = joinSide(rd, reaction.slots[0], t.synthons[0])!;
      const y = joinSide(rd, reaction.slots[1], t.synthons[1])!;
      const exact = new Set([...x.cross.get(y.view)!, ...y.cross.get(x.view)!]);
      const sup = new Set(crossCodes(ex!, ey!).map((c) => c % 2048));
      for (const bit of exact) expect(sup.has(bit), `${what}: cross bit ${bit}`).toBe(true);
      if (sup.size === exact.size) superset++;
      // Composed from the build's numbers alone, where they decide RDKit's redundancy rule.
      const envs = [slotJoinEnvs(reaction.slots[0])!, slotJoinEnvs(reaction.slots[1])!] as const;
      const fromEnvs = envFingerprint(
        reaction.slots,
        envs,
        t.synthons[0],
        t.synthons[1],
        new Uint8Array(256),
      );
      if (fromEnvs) {
        analytic++;
        expect([...fromEnvs], `${what} (join environments)`).toEqual([...p.fp]);
      }
    }
    for (let s = 0; s < 2; s++)
      for (let i = 0; i < reaction.slots[s].synthonIds.length; i++)
        learned += joinSide(rd, reaction.slots[s], i)?.cross.size ?? 0;
  }
  return { products, composed, learned, superset, analytic };
}

describe('join bits', () => {
  it('tiny synthons: redundant environments across the join', async () => {
    const small = ['[1*]C', '[1*]Cl', '[1*]N', '[1*]O', '[1*]C(C)C', '[1*]C(C)(C)C', '[1*]CC', '[1*]C=O'];
    const more = ['[1*]C#N', '[1*]C1CC1', '[1*]c1ccccc1', '[1*]N1CCOCC1', '[1*]OC(=O)C', '[1*]C(F)(F)F'];
    const lines = [...small, ...more].flatMap((smi, k) => [
      `${smi}\ta${k}\t0\ttiny-1`,
      `${smi}\tb${k}\t1\ttiny-1`,
    ]);
    const file = join(root, 'tiny.txt');
    await writeFile(file, SYNTHON_HEADER + lines.join('\n') + '\n');
    const res = check(await build('tiny', file));
    expect(res.products).toBe(14 * 14);
    expect(res.composed).toBe(res.products);
    expect(res.superset).toBeLessThan(res.composed); // tiny synthons: RDKit drops redundant ones
  });

  // The other RDKit test spaces have three slots or close rings: not joinable.
  it('amide_space: every product', async () => {
    const res = check(await build('amide_space', join(SOURCES, 'amide_space.txt')));
    expect(res.composed).toBe(res.products);
    expect(res.products).toBeGreaterThan(0);
  });

  it('AutoGrow4 × ZINC15: 8 synthons per slot of every joinable reaction', { timeout: 600_000 }, async () => {
    const file = join(root, 'ag4.txt');
    await writeAutogrow4Sample(file, { smallest: 4, spread: 4 });
    const sp = await build('ag4', file);
    const res = check(sp);
    expect(sp.reactions.filter((r) => joinable(r.info)).length).toBeGreaterThan(40);
    expect(res.products).toBeGreaterThan(2000);
    expect(res.composed / res.products).toBeGreaterThan(0.95);
    expect(res.superset / res.composed).toBeGreaterThan(0.5);
    expect(res.analytic / res.composed).toBeGreaterThan(0.5);
    // Cross bits were learned for fewer (synthon, view) pairs than there are products: the rest reused them.
    expect(res.learned).toBeLessThan(2 * res.composed);
  });
});
