/**
 * An opened space: manifest plus every slot's columns in memory, and the operations that walk its
 * products by index (enumeration for tests and small spaces, decoding product ids, sampling).
 */
import { join } from 'node:path';
import { readFile } from 'node:fs/promises';
import type { RDKitModule } from '../chem/rdkit.ts';
import { assembleProduct, decodeProductId, encodeProductId } from './assemble.ts';
import {
  decodeSlot,
  readManifest,
  type ReactionInfo,
  type SlotColumns,
  type SpaceManifest,
} from './format.ts';
import { attachRingPairs, decodeRingPairs } from './ring-pairs.ts';

export interface SpaceReaction {
  info: ReactionInfo;
  slots: SlotColumns[];
}

export interface OpenSpace {
  dir: string;
  manifest: SpaceManifest;
  reactions: SpaceReaction[];
}

/** Reads a built space directory into memory. */
export async function openSpace(dir: string): Promise<OpenSpace> {
  const manifest = await readManifest(dir);
  const reactions = await Promise.all(
    manifest.reactions.map(async (info) => {
      const slots = await Promise.all(
        info.slots.map(async (s) => decodeSlot(await readFile(join(dir, s.file)))),
      );
      // The pair states of a ring-bound reaction (format 6), for ring-zip.ts.
      if (info.ringPairs) attachRingPairs(slots, decodeRingPairs(await readFile(join(dir, info.ringPairs))));
      return { info, slots };
    }),
  );
  return { dir, manifest, reactions };
}

/** A product named by its reaction and one synthon index per slot. */
export interface ProductTuple {
  reaction: number;
  synthons: number[];
}

export function tupleSmiles(space: OpenSpace, t: ProductTuple): string[] {
  const r = space.reactions[t.reaction];
  return t.synthons.map((i, s) => r.slots[s].smiles[i]);
}

export function tupleId(space: OpenSpace, t: ProductTuple): string {
  const r = space.reactions[t.reaction];
  return encodeProductId(
    r.info.id,
    t.synthons.map((i, s) => r.slots[s].synthonIds[i]),
  );
}

/** The tuple of a product id, or undefined when the id names no product of this space. */
export function tupleOfId(space: OpenSpace, id: string): ProductTuple | undefined {
  const d = decodeProductId(id);
  if (!d) return undefined;
  const reaction = space.reactions.findIndex((r) => r.info.id === d.reactionId);
  if (reaction < 0) return undefined;
  const slots = space.reactions[reaction].slots;
  if (d.synthonIds.length !== slots.length) return undefined;
  const synthons = d.synthonIds.map((sid, s) => slots[s].synthonIds.indexOf(sid));
  return synthons.every((i) => i >= 0) ? { reaction, synthons } : undefined;
}

/** Every tuple of a reaction in index order (last slot fastest). */
export function* reactionTuples(space: OpenSpace, reaction: number): Generator<ProductTuple> {
  const sizes = space.reactions[reaction].slots.map((s) => s.synthonIds.length);
  if (sizes.some((n) => n === 0)) return;
  const idx = sizes.map(() => 0);
  for (;;) {
    yield { reaction, synthons: idx.slice() };
    let s = sizes.length - 1;
    while (s >= 0 && ++idx[s] === sizes[s]) idx[s--] = 0;
    if (s < 0) return;
  }
}

export interface EnumeratedProduct {
  id: string;
  smiles: string;
}

/** Enumerates every product (for small spaces and tests); invalid assemblies are counted. */
export function enumerateSpace(
  rd: RDKitModule,
  space: OpenSpace,
  limit = 1_000_000,
): { products: EnumeratedProduct[]; invalid: number } {
  const products: EnumeratedProduct[] = [];
  let invalid = 0;
  for (let r = 0; r < space.reactions.length; r++)
    for (const t of reactionTuples(space, r)) {
      if (products.length + invalid >= limit) throw new Error(`more than ${limit} products to enumerate`);
      const p = assembleProduct(rd, tupleSmiles(space, t));
      if (p) products.push({ id: tupleId(space, t), smiles: p.smiles });
      else invalid++;
    }
  return { products, invalid };
}
