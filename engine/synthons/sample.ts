/**
 * Random products of a space, seeded and reproducible (`route_product_tuple` sampling): a reaction
 * drawn with probability proportional to its product count, then one synthon per slot uniformly,
 * so every product is equally likely. Repeated tuples are counted as `deduplicated`, invalid
 * assemblies as `invalid`; neither is returned.
 */
import type { RDKitModule } from '../chem/rdkit.ts';
import { createPrng, nextBelow } from '../selection/prng.ts';
import { assembleProduct } from './assemble.ts';
import { tupleId, tupleSmiles, type OpenSpace, type ProductTuple } from './space.ts';

export interface SampledProduct {
  productId: string;
  smiles: string;
  reactionId: string;
  synthons: Array<{ slot: number; synthonId: string; smiles: string }>;
}

export interface SampleResult {
  products: SampledProduct[];
  deduplicated: number;
  invalid: number;
}

/** Up to `n` distinct valid products; stops after 20·n + 100 draws. */
export function sampleSpace(rd: RDKitModule, space: OpenSpace, n: number, seed: number): SampleResult {
  const next = createPrng(seed >>> 0);
  const weights = space.reactions.map((r) => r.info.products);
  const total = weights.reduce((a, b) => a + b, 0);
  const seen = new Set<string>();
  const products: SampledProduct[] = [];
  let deduplicated = 0;
  let invalid = 0;
  if (total === 0) return { products, deduplicated, invalid };
  for (let draw = 0; products.length < n && draw < 20 * n + 100; draw++) {
    // Two 32-bit draws make a uniform 53-bit fraction, enough for 10^12 products.
    let pick = ((next() * 2 ** 21 + (next() >>> 11)) / 2 ** 53) * total;
    let reaction = 0;
    while (reaction < weights.length - 1 && pick >= weights[reaction]) pick -= weights[reaction++];
    const slots = space.reactions[reaction].slots;
    const t: ProductTuple = { reaction, synthons: slots.map((s) => nextBelow(next, s.synthonIds.length)) };
    const id = tupleId(space, t);
    if (seen.has(id)) {
      deduplicated++;
      continue;
    }
    seen.add(id);
    const p = assembleProduct(rd, tupleSmiles(space, t));
    if (!p) {
      invalid++;
      continue;
    }
    products.push({
      productId: id,
      smiles: p.smiles,
      reactionId: space.reactions[reaction].info.id,
      synthons: t.synthons.map((i, s) => ({
        slot: s,
        synthonId: slots[s].synthonIds[i],
        smiles: slots[s].smiles[i],
      })),
    });
  }
  return { products, deduplicated, invalid };
}
