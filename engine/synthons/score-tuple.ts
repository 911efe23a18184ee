/**
 * Exact scoring of one candidate tuple of a space against a Morgan query, as cheaply as it can be
 * done exactly: join bits (join-walk.ts) for two-synthon single-bond joins, the TypeScript graph
 * zip (graph-zip.ts) for acyclic joins, the graph zip with RDKit's perception of the ring cores
 * (ring-zip.ts) for ring-closing and double-bond joins, RDKit's zip of kept synthon molecules
 * (zip-fingerprint.ts) where that cannot say, and RDKit assembly (assemble.ts) last.
 */
import type { RDKitModule } from '../chem/rdkit.ts';
import { tanimoto } from '../chem/fingerprint.ts';
import { assembleProduct } from './assemble.ts';
import { tupleFingerprint } from './graph-zip.ts';
import { ringZipFingerprint } from './ring-zip.ts';
import { joinable, joinFingerprint } from './join-bits.ts';
import { envFingerprint, slotJoinEnvs } from './join-walk.ts';
import { tupleSmiles, type OpenSpace, type ProductTuple } from './space.ts';

/** Two synthons joined by one single bond with join environments: scored from join bits. */
export function hasJoinEnvs(r: OpenSpace['reactions'][number]): boolean {
  return joinable(r.info) && r.slots.length === 2 && r.slots.every((s) => slotJoinEnvs(s) !== undefined);
}

/**
 * Whether the reaction's bound is tight enough for the exact walk: join environments, or the
 * ring-core bound stored by the build (ring-bound.ts).
 */
export function hasStrongBound(r: OpenSpace['reactions'][number]): boolean {
  return r.info.ringBound === true || hasJoinEnvs(r);
}

/**
 * The canonical SMILES of a tuple's product (RDKit's assembly), or undefined when it is invalid;
 * memoised in `cache` by tuple key (null = invalid), so a ladder's steps and a distinct search's
 * rounds assemble a hit once (they had assembled 22–70 hits twice per query on the 10^9 space).
 */
export function productSmiles(
  rd: RDKitModule,
  space: OpenSpace,
  c: ProductTuple,
  cache?: Map<string, string | null>,
): string | undefined {
  const key = cache && tupleKey(c);
  const known = key === undefined ? undefined : cache!.get(key);
  if (known !== undefined) return known ?? undefined;
  const smiles = assembleProduct(rd, tupleSmiles(space, c))?.smiles;
  if (key !== undefined) cache!.set(key, smiles ?? null);
  return smiles;
}

/** The key of a tuple in `SimilarityOptions.scored` (similarity.ts). */
export function tupleKey(c: ProductTuple): string {
  return `${c.reaction}:${c.synthons.join(',')}`;
}

/**
 * The exact Tanimoto of a tuple's product to the query (memoised in `scored`), with the product's
 * SMILES when RDKit had to assemble it ('' when join bits or the graph zip gave the fingerprint);
 * undefined for an invalid assembly.
 */
export function scoreTuple(
  rd: RDKitModule,
  space: OpenSpace,
  queryFp: Uint8Array,
  c: ProductTuple,
  fpBuf: Uint8Array,
  memo?: Map<string, number | null>,
): { sim: number; smiles: string } | undefined {
  const key = tupleKey(c);
  const known = memo?.get(key);
  if (known === null) return undefined;
  if (known !== undefined) return { sim: known, smiles: '' };
  const reaction = space.reactions[c.reaction];
  let smiles = '';
  // Score from join bits or the zipped graphs where that is exact; RDKit then assembles only
  // the final hits.
  let fp: Uint8Array | undefined;
  if (joinable(reaction.info)) {
    const [ea, eb] = reaction.slots.map(slotJoinEnvs);
    // Only where the build wrote join environments: elsewhere (a double-bond join) the
    // synthons would be parsed just to find they cannot take the join-bits path.
    if (ea && eb)
      fp =
        envFingerprint(reaction.slots, [ea, eb], c.synthons[0], c.synthons[1], fpBuf) ??
        joinFingerprint(rd, reaction.slots, c.synthons[0], c.synthons[1], fpBuf);
  }
  fp ??= tupleFingerprint(rd, reaction.slots, c.synthons, reaction.info.ringForming);
  // What the graph zip cannot take (a ring closed, a double-bond join): the graph zip with RDKit's
  // perception of the ring cores (ring-zip.ts), which falls back to RDKit's zip itself.
  const ring = fp ? undefined : ringZipFingerprint(rd, reaction.slots, c.synthons, reaction.info.ringForming);
  if (ring === null) {
    memo?.set(key, null);
    return undefined;
  }
  fp ??= ring;
  if (!fp) {
    const product = assembleProduct(rd, tupleSmiles(space, c), true);
    if (!product?.fp) {
      memo?.set(key, null);
      return undefined;
    }
    ({ smiles, fp } = product);
  }
  const sim = tanimoto(queryFp, fp!);
  memo?.set(key, sim);
  return { sim, smiles };
}
